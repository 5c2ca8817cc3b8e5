import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { chatAdapterContract, RecordingSink, RecordingSurfaces } from './chat-adapter-contract.js';
import { fromConversationRef, toConversationRef } from '../../adapters/console/console-conversation.js';
import { conversationKeyContract } from './conversation-key-contract.js';
import { stepsIn } from './step-lines-read.js';

/** A console message's trailing numbered choices (how it shows buttons), split from its text. */
function splitChoices(lines: string[]): { text: string; choices: string[] } {
  const hint = lines.findLastIndex((l) => l === '(type a number or your own answer)');
  let first = hint;
  while (first > 0 && /^\d+\. /.test(lines[first - 1]!)) first--;
  if (hint < 0 || first === hint) return { text: lines.join('\n'), choices: [] };
  return {
    text: lines.slice(0, first).join('\n'),
    choices: lines.slice(first, hint).map((l) => l.replace(/^\d+\. /, '')),
  };
}

/** The messages printed in `output`: speaker, text (the indented lines under the speaker line) and the choices offered under it. */
function messagesIn(output: string): { speaker: string; text: string; choices: string[] }[] {
  const found: { speaker: string; text: string; choices: string[] }[] = [];
  let current: { speaker: string; lines: string[] } | null = null;
  const close = () => {
    if (current) found.push({ speaker: current.speaker, ...splitChoices(current.lines) });
    current = null;
  };
  for (const line of output.split('\n')) {
    const speaker = /^(errand(?: \([^)]*\))?):$/.exec(line);
    if (speaker) {
      close();
      current = { speaker: speaker[1]!, lines: [] };
    } else if (current && line.startsWith('  ')) current.lines.push(line.slice(2));
    else close();
  }
  close();
  return found;
}

/** Collects what a stream prints. */
function capture(stream: PassThrough): () => string {
  let printed = '';
  stream.on('data', (d: Buffer) => void (printed += d.toString('utf8')));
  return () => printed;
}

const PERSON = 'you';
const PRIVATELY = 'errand (only you see this)';

chatAdapterContract(
  'console',
  async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const everything = capture(output);
    // The screen as cleared before each check (beginCheck): what was printed since.
    let cleared = 0;
    const printed = () => everything().slice(cleared);
    const filesDir = mkdtempSync(join(tmpdir(), 'errand-console-files-'));
    const adapter = createConsoleAdapter({ input, output, timezone: 'Europe/Lisbon', filesDir });
    const sink = new RecordingSink();
    const surfaces = new RecordingSurfaces();
    await adapter.start(sink, surfaces);
    const channel = { platform: 'console', workspace: 'local', channel: 'console' };
    // Everything shows on the one screen, but only for the console's own conversations, and privately only for the person at it.
    const ours = (c: ConversationRef) =>
      c.platform === channel.platform && c.workspace === channel.workspace && c.channel === channel.channel;
    const said = (c: ConversationRef, ...speakers: string[]) =>
      ours(c) ? messagesIn(printed()).filter((m) => speakers.includes(m.speaker)) : [];
    const type = async (line: string) => void input.write(`${line}\n`);
    const newMessage = async (since: number, speaker: string) =>
      (await waitFor(
        () => messagesIn(printed().slice(since)).find((m) => m.speaker === speaker),
        5000,
        `a message of ${speaker}`,
      ))!;
    return {
      adapter,
      sink,
      channel,
      onlyConversation: adapter.conversation,
      person: PERSON,
      personTimezone: 'Europe/Lisbon',
      mentionBot: type,
      personSays: (_conversation, text) => type(text),
      // A terminal never delivers a line twice.
      redeliverLast: null,
      postAsSelfAndOtherBot: async (conversation, text) => {
        // The console's own output, and another Errand console's, come back as its input.
        const before = printed().length;
        await adapter.postMessage(conversation, { text });
        const own = printed().slice(before);
        const otherOutput = new PassThrough();
        const otherPrinted = capture(otherOutput);
        const other = createConsoleAdapter({ input: new PassThrough(), output: otherOutput });
        await other.postMessage(other.conversation, { text: `@errand ${text}` });
        input.write(own);
        input.write(otherPrinted());
        return messagesIn(own).length + messagesIn(otherPrinted()).length;
      },
      runCommand: async (name, args) => {
        const before = printed().length;
        await type(`/${name} ${args}`);
        return (await newMessage(before, PRIVATELY)).text;
      },
      click: (_conversation, _messageId, _buttons, index) => type(String(index + 1)),
      storedTexts: async (c) => said(c, 'errand', 'errand (edited)').map((m) => m.text),
      editsShown: async (c) => said(c, 'errand (edited)').map((m) => m.text),
      noticesTo: async (userId, c) => (userId === PERSON ? said(c, PRIVATELY).map((m) => m.text) : []),
      privatelyShown: async (userId, c) =>
        userId === PERSON ? said(c, PRIVATELY).map((m) => ({ text: m.text, buttons: m.choices })) : [],
      workingShown: async (c) => {
        const lines = printed().split('\n');
        return (
          ours(c) &&
          lines.findLastIndex((l) => l.startsWith('… working')) > lines.findLastIndex((l) => l.startsWith('── '))
        );
      },
      stepsShown: async (c) => (ours(c) ? stepsIn(printed()) : []),
      directConversation: adapter.conversation,
      surfaces,
      answerElicitation: async (_c, _messageId, _buttons, values) => {
        // Answer is the first choice; then each field is asked on its own line, and the answer follows the last.
        let at = printed().length;
        await type('1');
        for (const value of values) {
          await newMessage(at, PRIVATELY);
          at = printed().length;
          await type(value);
        }
        await newMessage(at, PRIVATELY);
      },
      actOnElicitation: async (_c, _messageId, _buttons, index) => {
        const before = printed().length;
        await type(String(index + 1));
        return (await newMessage(before, PRIVATELY)).text;
      },
      // The console prints where it saved each file, one message per post: read them back from there.
      storedFiles: async (c) =>
        said(c, 'errand').flatMap((m, i) =>
          [...m.text.matchAll(/📎 (.+): saved to (.+)$/gm)].map((f) => ({
            name: f[1]!,
            bytes: new Uint8Array(readFileSync(f[2]!)),
            message: String(i),
          })),
        ),
      beginCheck: () => void (cleared = everything().length),
      teardown: async () => {
        await adapter.stop();
        rmSync(filesDir, { recursive: true, force: true });
      },
    };
  },
  {
    stopButtons: false,
    redelivers: false,
    steps: 'working',
    threadFallback: false,
    singleScreen: true,
    commandReplyButtons: false,
    surfaces: { home: false, forms: false, elicitation: true, disconnect: false },
    capabilities: ['files', 'history', 'privateAnswers', 'stream', 'timezone'],
  },
);

conversationKeyContract('console', {
  platform: 'console',
  encode: toConversationRef,
  decode: fromConversationRef,
  // The session is the console's direct conversation with the bot; a thread can be opened on one of its messages.
  dm: { location: { thread: '1a2b3c4d' }, key: 'console:local:console:1a2b3c4d' },
  thread: { location: { thread: '1a2b3c4d-7' }, key: 'console:local:console:1a2b3c4d-7' },
  channel: { location: { thread: null }, key: 'console:local:console:-' },
  malformed: [{ thread: '' }, { thread: 'a:b' }, { thread: 'two words' }],
});
