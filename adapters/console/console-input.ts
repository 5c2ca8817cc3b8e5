import { parseActionId } from '../../src/chat/action-id.js';
import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';
import { isCommandName, type InboundSink } from '../../src/chat/inbound.js';
import { parsePrivateAnswerActionId } from '../../src/chat/private-answers.js';

/** A question's options as the console numbers them. */
export type ConsoleOption = { readonly actionId: string; readonly label: string };

export interface ConsoleInputDeps {
  readonly conversation: ConversationRef;
  readonly channel: ChannelRef;
  readonly userId: string;
  /** The session's id, the first part of every id this console makes. */
  readonly session: string;
  /** The next number of the session's ids (shared with what the adapter posts). */
  nextSeq(): number;
  /** An MCP server's question being answered takes the line first; true when it did. */
  elicitationLine(text: string): Promise<boolean>;
  /** Records what the person wrote in the session's transcript. */
  said(text: string): void;
  /** Shows a reply only the person at the terminal sees. */
  reply(text: string): void;
  print(text: string): void;
  /** The person's IANA timezone. */
  timezone(): string;
}

/**
 * What the person types at the terminal: a slash command, the number of an option of the last question (or of a
 * held answer's Share / Keep choice), or a message. Knows the last question asked, so a bare number answers it.
 */
export function createConsoleInput(deps: ConsoleInputDeps) {
  let lastQuestion: { buttons: readonly ConsoleOption[] } | null = null;
  const { conversation, userId } = deps;
  return {
    /** A question (or a choice) was posted: its options are what a bare number picks from. */
    asked(buttons: readonly ConsoleOption[]): void {
      lastQuestion = { buttons };
    },
    async handleLine(sink: InboundSink, line: string): Promise<void> {
      const text = line.trim();
      // An MCP server's question being answered takes the line first (an empty one keeps a field's default).
      if (await deps.elicitationLine(text)) return;
      if (text === '') return;
      const cmd = /^\/(\w+)\s*(.*)$/.exec(text);
      const name = cmd?.[1];
      if (cmd && name !== undefined && isCommandName(name)) {
        const reply = await sink.onCommand({
          name,
          args: cmd[2] ?? '',
          channel: deps.channel,
          conversation,
          userId,
          direct: true,
        });
        deps.reply(reply.text);
        return;
      }
      if (cmd) {
        deps.print(`Unknown command /${cmd[1]}. Try /help.`);
        return;
      }
      const choice = lastQuestion && /^\d+$/.test(text) ? lastQuestion.buttons[Number(text) - 1] : undefined;
      lastQuestion = null;
      if (choice) {
        const ref = parseActionId(choice.actionId);
        const held = parsePrivateAnswerActionId(choice.actionId);
        if (held) {
          const reply = await sink.onAction({ kind: 'private_answer', ...held, platform: 'console', userId });
          if (reply) deps.reply(reply.text);
          return;
        }
        if (ref?.kind === 'answer') {
          deps.said(choice.label);
          const eventId = `console-${deps.session}-${deps.nextSeq()}`;
          const { runId, questionId } = ref;
          const answer = { kind: 'answer' as const, runId, questionId, answer: choice.label, userId, conversation };
          const reply = await sink.onAction({ ...answer, eventId, direct: true });
          if (reply) deps.reply(reply.text);
          return;
        }
      }
      deps.said(text);
      const messageId = `${deps.session}-${deps.nextSeq()}`;
      await sink.onMessage({ messageId, conversation, userId, direct: true, text, timezone: deps.timezone() });
    },
  };
}
