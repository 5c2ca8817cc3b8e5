import { PassThrough } from 'node:stream';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { chatAdapterContract, RecordingSink } from './chat-adapter-contract.js';

chatAdapterContract('console', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (d: Buffer) => {
    printed += d.toString('utf8');
  });
  const adapter = createConsoleAdapter({ input, output, timezone: 'UTC' });
  const sink = new RecordingSink();
  await adapter.start(sink);
  return {
    adapter,
    sink,
    channel: { platform: 'console', workspace: 'local', channel: 'console' },
    mentionBot: async (text) => void input.write(`${text}\n`),
    postAsSelfAndOtherBot: async () => {},
    storedTexts: async () => {
      const blocks = printed.split(/^(?:> )*errand(?: \(edited\))?:\n/m).slice(1);
      return blocks.map((b) => b.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.slice(2)).join('\n'));
    },
    teardown: () => adapter.stop(),
  };
});
