import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { parseActionId } from '../../src/chat/action-id.js';
import type { AdapterCapabilities, ChatAdapter, OutboundMessage, PostedMessage, WorkingStatus } from '../../src/chat/chat-adapter.js';
import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandName, InboundSink } from '../../src/chat/inbound.js';
import { splitText } from '../../src/chat/split-text.js';
import { renderConsoleMessage } from './render.js';
import { createSessionTranscript } from './session-transcript.js';

export interface ConsoleAdapterOptions {
  input: Readable;
  output: Writable;
  /** Timezone reported for the local user (the machine's, by default). */
  timezone?: string;
  /** Called when the input ends (Ctrl-D), so the process can shut down. */
  onClose?: () => void;
  /** Clock for the transcript's times (default: the system clock). */
  now?: () => number;
}

const COMMANDS: readonly CommandName[] = ['tasks', 'stop', 'schedules', 'usage', 'help'];
const USER = 'you';

/**
 * A terminal chat for trying Errand without any platform account: one conversation per session,
 * the bot's messages and questions printed as they come, `/tasks`, `/stop`, `/schedules`, `/usage`, `/help`
 * typed directly, and a question's options answered by typing their number. Its history is the
 * session's own transcript.
 */
export function createConsoleAdapter(options: ConsoleAdapterOptions): ChatAdapter & { readonly conversation: ConversationRef } {
  const session = randomUUID().slice(0, 8);
  const conversation: ConversationRef = { platform: 'console', workspace: 'local', channel: 'console', thread: session };
  const channel: ChannelRef = { platform: 'console', workspace: 'local', channel: 'console' };
  const capabilities: AdapterCapabilities = { buttons: true, ephemeral: true, maxMessageLength: 4000 };
  const out = options.output;
  let rl: Interface | null = null;
  let seq = 0;
  let lastQuestion: { buttons: { actionId: string; label: string }[] } | null = null;
  let working = false;
  const transcript = createSessionTranscript(options.now);

  const print = (text: string) => {
    out.write(`${text}\n`);
    if (rl) rl.prompt(true);
  };

  const handleLine = async (sink: InboundSink, line: string) => {
    const text = line.trim();
    if (text === '') return;
    const cmd = /^\/(\w+)\s*(.*)$/.exec(text);
    if (cmd && COMMANDS.includes(cmd[1] as CommandName)) {
      const reply = await sink.onCommand({ name: cmd[1] as CommandName, args: cmd[2] ?? '', channel, conversation, userId: USER, direct: true });
      print(renderConsoleMessage('errand (only you see this)', reply.text));
      return;
    }
    if (cmd) {
      print(`Unknown command /${cmd[1]}. Try /help.`);
      return;
    }
    const choice = lastQuestion && /^\d+$/.test(text) ? lastQuestion.buttons[Number(text) - 1] : undefined;
    if (choice) {
      const ref = parseActionId(choice.actionId);
      lastQuestion = null;
      if (ref?.kind === 'answer') {
        transcript.add('user', choice.label);
        await sink.onAction({ kind: 'answer', runId: ref.runId, answer: choice.label, userId: USER, conversation, eventId: `console-${session}-${++seq}`, direct: true });
        return;
      }
    }
    lastQuestion = null;
    transcript.add('user', text);
    await sink.onMessage({ messageId: `${session}-${++seq}`, conversation, userId: USER, direct: true, text, timezone: options.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone });
  };

  return {
    platform: 'console',
    capabilities,
    conversation,
    async start(sink) {
      rl = createInterface({ input: options.input, output: out, terminal: false, prompt: '> ' });
      out.write('Errand console — type a request, /help for commands, Ctrl-D to quit.\n');
      rl.prompt();
      rl.on('line', (line) => {
        handleLine(sink, line).catch((err: unknown) => print(`(error: ${err instanceof Error ? err.message : String(err)})`));
      });
      rl.on('close', () => options.onClose?.());
    },
    async stop() {
      rl?.close();
      rl = null;
    },
    /** The terminal is always there while the process runs. */
    connectionState: () => ({ connected: true }),
    async postMessage(_ref, message: OutboundMessage): Promise<PostedMessage> {
      const id = `out-${++seq}`;
      const buttons = (message.buttons ?? []).map((b) => ({ actionId: b.actionId, label: b.label }));
      const isQuestion = buttons.some((b) => parseActionId(b.actionId)?.kind === 'answer');
      if (isQuestion) lastQuestion = { buttons };
      const options = isQuestion ? `\n${buttons.map((b, i) => `  ${i + 1}. ${b.label}`).join('\n')}\n  (type a number or your own answer)` : '';
      for (const piece of splitText(`${message.mentionUserId ? '@you ' : ''}${message.text}`, capabilities.maxMessageLength)) {
        print(renderConsoleMessage('errand', piece));
      }
      if (options) print(options.slice(1));
      transcript.add('bot', `${message.mentionUserId ? '@you ' : ''}${message.text}`, id);
      return { id };
    },
    async editMessage(_ref, id, message) {
      transcript.edit(id, message.text);
      print(renderConsoleMessage('errand (edited)', message.text));
    },
    async setWorking(_ref, status: WorkingStatus | null) {
      if (status && !working) print('  … working (type "stop" to stop)');
      working = status !== null;
    },
    async openThread(ch, messageId) {
      return { ...ch, thread: messageId };
    },
    async postEphemeral(_ref, _userId, text) {
      transcript.add('bot', text);
      print(renderConsoleMessage('errand (only you see this)', text));
    },
    async fetchUserTimezone() {
      return options.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    },
    history: transcript.history,
  };
}
