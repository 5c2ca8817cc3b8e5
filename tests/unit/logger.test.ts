import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString('utf8'));
      cb();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

describe('logger', () => {
  it('redacts tokens and keys in fields, nested config and error messages', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        config: { SLACK_BOT_TOKEN: 'xoxb-111-222-secret', OPENAI_API_KEY: 'sk-abcdefghijklmnop' },
        token: 'discord-secret',
      },
      'starting',
    );
    logger.error({ err: new Error('auth failed for xapp-1-A0-secretvalue') }, 'slack said no to xoxb-999-888-secret');
    const out = lines.join('');
    for (const secret of [
      'xoxb-111-222-secret',
      'sk-abcdefghijklmnop',
      'discord-secret',
      'xapp-1-A0-secretvalue',
      'xoxb-999-888-secret',
    ]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('[redacted]');
  });

  it('honours the level', () => {
    const lines: string[] = [];
    const logger = createLogger(
      'warn',
      new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }),
    );
    logger.info('quiet');
    logger.warn('loud');
    expect(lines).toHaveLength(1);
  });
});
