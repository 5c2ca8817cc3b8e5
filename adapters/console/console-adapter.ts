import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { parseActionId } from '../../src/chat/action-id.js';
import type { ChatAdapter, OutboundMessage, PostedMessage, WorkingStatus } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { fitPieces } from '../../src/chat/fit-pieces.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { AdapterError } from '../../src/errors.js';
import { createPlainScreen, createTerminalScreen, type ConsoleScreen } from './console-screen.js';
import { loadMarkdownRenderer } from './markdown-renderer.js';
import { renderConsoleMessage, renderOptions, renderStep, type ConsoleLook } from './render.js';
import { createStepPrinter } from './step-printer.js';
import { createSessionTranscript } from './session-transcript.js';
import { CONSOLE_CHANNEL, toConversationRef } from './console-conversation.js';
import { createConsoleStream } from './console-stream.js';
import { createConsoleElicitation } from './console-elicitation.js';
import { createConsoleFilePosts } from './console-files.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import { createEchoFilter } from './echo-filter.js';
import { createConsoleInput } from './console-input.js';
import { wantsColor, type ColorEnv } from './terminal-style.js';
import { createWorkingIndicator, type WorkingIndicator } from './working-indicator.js';

export interface ConsoleAdapterOptions {
  input: Readable & { isTTY?: boolean };
  output: Writable & { isTTY?: boolean; columns?: number };
  /** Timezone reported for the local user (the machine's, by default). */
  timezone?: string;
  /** Called when the input ends (Ctrl-D, Ctrl-C, the end of piped input), so the process can shut down. */
  onClose?: () => void;
  /**
   * Piped input only: called once its last line has been handed over, before `onClose`, to let the work
   * it started finish. Says how many runs were stopped because they asked a question nobody can answer now.
   */
  onInputEnd?: () => Promise<{ questionsStopped: number }>;
  /** Clock for the transcript's times and the elapsed time of runs (default: the system clock). */
  clock?: Clock;
  /** Where `FORCE_COLOR`/`NO_COLOR` are read (default: none, so colour follows the output being a terminal). */
  env?: ColorEnv;
  /** Where files the bot posts are saved, a folder per conversation (default `./data/files`). */
  filesDir?: string;
}

const USER = 'you';
/** How the console shows that a message is addressed to the person at the terminal. */
const MENTION = '@you ';
/** Printed when piped input ended while a run asked a question, which was then stopped. */
const NO_ANSWER_AFTER_INPUT =
  'The input has ended, so nobody can answer this question: I stopped the request. Ask again with the answer in it, or in an interactive console.';

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * A terminal chat for trying Errand without any platform account: one conversation per session,
 * the bot's messages and questions printed as they come, `/tasks`, `/stop`, `/schedules`, `/usage`, `/connections`, `/memory`, `/skills`, `/help`
 * typed directly, and a question's options answered by typing their number. Its history is the
 * session's own transcript. On a terminal it renders Markdown, keeps the prompt below the bot's lines
 * and shows how long a run has been working; piped, it writes plain lines a log can keep, and at the end
 * of the input lets the work it started finish (`onInputEnd`) before it closes.
 */
export function createConsoleAdapter(
  options: ConsoleAdapterOptions,
): ChatAdapter & { readonly conversation: ConversationRef } {
  const session = randomUUID().slice(0, 8);
  const conversation = toConversationRef({ thread: session })!;
  const channel = CONSOLE_CHANNEL;
  const maxMessageLength = 4000;
  const out = options.output;
  const clock = options.clock ?? systemClock;
  const interactive = options.input.isTTY === true && out.isTTY === true;
  const color = wantsColor(out, options.env ?? {});
  let look: ConsoleLook = { color, markdown: null };
  let rl: Interface | null = null;
  let screen: ConsoleScreen = createPlainScreen(out);
  let working: WorkingIndicator | null = null;
  let seq = 0;
  let stopped = false;
  const transcript = createSessionTranscript(() => clock.now());
  const keyOf = (ref: ConversationRef) => `${ref.channel}:${ref.thread}`;
  const print = (text: string) => screen.print(text);
  const steps = createStepPrinter((line) => print(renderStep(line, look)));
  /** The look for one message: on a terminal, word-wrapped to its current width under the two-space indent. */
  const styled = (): ConsoleLook =>
    out.isTTY === true ? { ...look, wrapWidth: Math.max(20, (out.columns ?? 80) - 2) } : look;
  let surfaces: SurfaceSink | null = null;
  const elicitation = createConsoleElicitation({
    surfaces: () => surfaces,
    say: (text) => print(renderConsoleMessage('errand (only you see this)', text, styled())),
    post: (text) => print(renderConsoleMessage('errand', `@you ${text}`, styled())),
    options: (labels) => print(renderOptions(labels, look)),
    userId: USER,
  });

  const input = createConsoleInput({
    conversation,
    channel,
    userId: USER,
    session,
    nextSeq: () => ++seq,
    elicitationLine: (text) => elicitation.line(text),
    said: (text) => void transcript.add('user', text),
    reply: (text) => print(renderConsoleMessage('errand (only you see this)', text, styled())),
    print,
    timezone: () => options.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  });

  return {
    platform: 'console',
    maxMessageLength,
    render: (text, mentionUserId) =>
      fitPieces(text, maxMessageLength, (piece, first) => (first && mentionUserId ? MENTION.length : 0) + piece.length),
    // One person at the terminal.
    privateNotices: true,
    capabilities: {
      stream: {
        open() {
          // On a colour terminal each Markdown block is rendered once it is complete, so the answer shows as it comes.
          const rendered = look.markdown !== null;
          return createConsoleStream({
            print,
            header: renderConsoleMessage('errand', '', styled()).split('\n')[0]!,
            ...(rendered
              ? {
                  renderBlocks: (markdown: string) =>
                    renderConsoleMessage('errand', markdown, styled()).split('\n').slice(1).join('\n'),
                }
              : {}),
            record: (text) => {
              const id = `out-${++seq}`;
              transcript.add('bot', text, id);
              return id;
            },
          });
        },
      },
      history: transcript.history,
      // One person at the terminal: nobody else reads it, but a held answer is printed to them with its choices as typed numbers.
      privateAnswers: {
        othersRead: () => false,
        async showPrivately(_ref, _userId, message) {
          const buttons = (message.buttons ?? []).map((b) => ({ actionId: b.actionId, label: b.label }));
          print(renderConsoleMessage('errand (only you see this)', message.text, styled()));
          if (buttons.length > 0) {
            input.asked(buttons);
            print(
              renderOptions(
                buttons.map((b) => b.label),
                look,
              ),
            );
          }
          return { kind: 'shown' };
        },
      },
      timezone: { fetchUserTimezone: async () => options.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone },
      files: createConsoleFilePosts({
        dir: options.filesDir ?? './data/files',
        say: (text) => {
          const id = `out-${++seq}`;
          print(renderConsoleMessage('errand', text, styled()));
          transcript.add('bot', text, id);
          return id;
        },
      }),
    },
    conversation,
    async start(sink, surfaceSink) {
      surfaces = surfaceSink ?? null;
      // marked and marked-terminal are loaded here, on a colour terminal only: a pipe prints the Markdown as written.
      if (color) look = { color, markdown: await loadMarkdownRenderer(Math.max(20, (out.columns ?? 80) - 2)) };
      // Read before the input is: a line must not arrive while nobody listens.
      const carriedOver = await Promise.resolve(surfaces?.carriedOverElicitations?.('console', USER) ?? []).catch(
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      );
      const reader = createInterface({ input: options.input, output: out, terminal: interactive, prompt: '> ' });
      rl = reader;
      screen = interactive ? createTerminalScreen(reader, out) : createPlainScreen(out);
      working = createWorkingIndicator({
        clock,
        look,
        live: interactive,
        show: (status) => screen.status(status),
        print,
      });
      print(
        look.color
          ? '\u001b[1mErrand console\u001b[22m — type a request, /help for commands, Ctrl-D to quit.'
          : 'Errand console — type a request, /help for commands, Ctrl-D to quit.',
      );
      // A server's question carried over a restart was posted by the old process, gone with its screen: put it again.
      if (carriedOver instanceof Error) print(`(error: ${errorText(carriedOver)})`);
      else elicitation.carriedOver(carriedOver);
      const handling = new Set<Promise<void>>();
      // Bots are never answered, so two consoles piped into each other cannot loop.
      const fromBot = createEchoFilter();
      reader.on('line', (line) => {
        screen.lineEntered();
        if (fromBot(line)) return;
        const handled = input.handleLine(sink, line).catch((err: unknown) => print(`(error: ${errorText(err)})`));
        handling.add(handled);
        void handled.finally(() => handling.delete(handled));
      });
      // In terminal mode readline takes Ctrl-C from the process: it quits, as it would without readline.
      reader.on('SIGINT', () => reader.close());
      reader.on('close', () => {
        if (rl !== reader) return;
        const finish = options.onInputEnd;
        // On a terminal, Ctrl-D and Ctrl-C mean quit now; the end of piped input only means nothing more will come.
        if (interactive || !finish) return options.onClose?.();
        void (async () => {
          while (handling.size > 0) await Promise.allSettled([...handling]);
          // An MCP server's question waits inside a running call: nobody can answer it now, so it is cancelled.
          await elicitation.inputEnd();
          const { questionsStopped } = await finish();
          if (questionsStopped > 0) print(renderConsoleMessage('errand', NO_ANSWER_AFTER_INPUT, styled()));
        })()
          .catch((err: unknown) => print(`(error: ${errorText(err)})`))
          .finally(() => {
            if (rl === reader) options.onClose?.();
          });
      });
    },
    async stop() {
      stopped = true;
      working?.dispose();
      working = null;
      screen.clear();
      screen = createPlainScreen(out);
      const reader = rl;
      rl = null;
      reader?.close();
    },
    /** The terminal is there until the adapter is stopped. */
    connectionState: () => ({ connected: !stopped }),
    async postMessage(ref, message: OutboundMessage): Promise<PostedMessage> {
      const id = `out-${++seq}`;
      const buttons = (message.buttons ?? []).map((b) => ({ actionId: b.actionId, label: b.label }));
      const isQuestion = buttons.some((b) => parseActionId(b.actionId)?.kind === 'answer');
      if (isQuestion) {
        input.asked(buttons);
        working?.asked(keyOf(ref));
      }
      const text = `${message.mentionUserId ? MENTION : ''}${message.text}`;
      // One message: the outbox posts the pieces `render` made, so a text over the limit is refused, never split.
      if (text.length > maxMessageLength)
        throw new AdapterError(
          `A console message of ${text.length} characters is over the limit of ${maxMessageLength}: post the pieces render() makes of it.`,
        );
      print(renderConsoleMessage('errand', text, styled()));
      if (isQuestion)
        print(
          renderOptions(
            buttons.map((b) => b.label),
            look,
          ),
        );
      else if (elicitation.posted(buttons)) working?.asked(keyOf(ref));
      transcript.add('bot', text, id);
      return { id };
    },
    async editMessage(_ref, id, message) {
      transcript.edit(id, message.text);
      print(renderConsoleMessage('errand (edited)', message.text, styled()));
    },
    async setWorking(ref, status: WorkingStatus | null) {
      if (status) working?.begin(keyOf(ref));
      else working?.end(keyOf(ref));
      if (status?.steps) steps.show(keyOf(ref), status.steps);
      else if (!status) steps.end(keyOf(ref));
    },
    async openThread(_channel, messageId) {
      const thread = toConversationRef({ thread: messageId });
      if (!thread) throw new AdapterError(`Not a console message id: ${messageId}`);
      return thread;
    },
    async postEphemeral(_ref, _userId, text) {
      transcript.add('bot', text);
      print(renderConsoleMessage('errand (only you see this)', text, styled()));
    },
  };
}
