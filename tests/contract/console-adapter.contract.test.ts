import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import { chatAdapterContract, RecordingSink } from './chat-adapter-contract.js';
import { fromConversationRef, toConversationRef } from '../../adapters/console/console-conversation.js';
import { conversationKeyContract } from './conversation-key-contract.js';

/** The messages printed in `output`: speaker and text (the indented lines under the speaker line). */
function messagesIn(output: string): { speaker: string; text: string }[] {
  const found: { speaker: string; text: string }[] = [];
  let current: { speaker: string; lines: string[] } | null = null;
  const close = () => {
    if (current) found.push({ speaker: current.speaker, text: current.lines.join('\n') });
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

chatAdapterContract(
  'console',
  async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const printed = capture(output);
    const filesDir = mkdtempSync(join(tmpdir(), 'errand-console-files-'));
    const adapter = createConsoleAdapter({ input, output, timezone: 'Europe/Lisbon', filesDir });
    const sink = new RecordingSink();
    await adapter.start(sink);
    const type = async (line: string) => void input.write(`${line}\n`);
    const newMessage = async (since: number, speaker: string) => waitFor(() => messagesIn(printed().slice(since)).find((m) => m.speaker === speaker), 5000, `a message of ${speaker}`);
    return {
      adapter,
      sink,
      channel: { platform: 'console', workspace: 'local', channel: 'console' },
      onlyConversation: adapter.conversation,
      person: 'you',
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
        return (await newMessage(before, 'errand (only you see this)'))!.text;
      },
      click: (_conversation, _messageId, _buttons, index) => type(String(index + 1)),
      storedTexts: async () =>
        messagesIn(printed())
          .filter((m) => m.speaker === 'errand' || m.speaker === 'errand (edited)')
          .map((m) => m.text),
      noticesTo: async () =>
        messagesIn(printed())
          .filter((m) => m.speaker === 'errand (only you see this)')
          .map((m) => m.text),
      workingShown: async () => {
        const lines = printed().split('\n');
        return lines.findLastIndex((l) => l.startsWith('… working')) > lines.findLastIndex((l) => l.startsWith('── '));
      },
      // The console prints where it saved each file: read them back from there.
      storedFiles: async () =>
        [...printed().matchAll(/📎 (.+): saved to (.+)$/gm)].map((m) => ({ name: m[1]!, bytes: new Uint8Array(readFileSync(m[2]!)) })),
      teardown: async () => {
        await adapter.stop();
        rmSync(filesDir, { recursive: true, force: true });
      },
    };
  },
  { stopButtons: false, capabilities: ['files', 'history', 'privateAnswers', 'stream', 'timezone'] },
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
