import { describe, expect, it } from 'vitest';
import { createSlackFileDownloader } from '../../adapters/slack/slack-files.js';

/** A fetch that records where it was asked to go and with which headers. */
function recordingFetch(answer: () => Response) {
  const seen: { url: string; auth: string | null; redirect: string | undefined }[] = [];
  const f = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input), auth: new Headers(init?.headers).get('authorization'), redirect: init?.redirect });
    return answer();
  }) as typeof fetch;
  return { f, seen };
}
const signal = new AbortController().signal;

describe('Slack file downloads', () => {
  it('sends the bot token to files.slack.com and reads the bytes, refusing redirects', async () => {
    const { f, seen } = recordingFetch(() => new Response('hello'));
    const download = createSlackFileDownloader({ botToken: 'xoxb-1', fetch: f });
    expect(Buffer.from(await download('https://files.slack.com/files-pri/T1-F1/a.txt', signal)).toString()).toBe(
      'hello',
    );
    expect(seen).toEqual([
      { url: 'https://files.slack.com/files-pri/T1-F1/a.txt', auth: 'Bearer xoxb-1', redirect: 'manual' },
    ]);
  });

  it('never sends the token to another host, unless it is the SLACK_API_URL origin', async () => {
    const { f, seen } = recordingFetch(() => new Response('x'));
    const download = createSlackFileDownloader({ botToken: 'xoxb-1', apiUrl: 'http://127.0.0.1:9000/api/', fetch: f });
    await expect(download('https://evil.example/files-pri/a.txt', signal)).rejects.toThrow(/not sending the bot token/);
    await expect(download('http://127.0.0.1:9000/files-pri/T1-F1/a.txt', signal)).resolves.toBeInstanceOf(Uint8Array);
    expect(seen.map((s) => s.url)).toEqual(['http://127.0.0.1:9000/files-pri/T1-F1/a.txt']);
  });

  it('treats the redirect to the sign-in page Slack answers without files:read as a failure, not a file', async () => {
    const { f } = recordingFetch(
      () => new Response(null, { status: 302, headers: { location: 'https://slack.com/signin' } }),
    );
    const download = createSlackFileDownloader({ botToken: 'xoxb-1', fetch: f });
    await expect(download('https://files.slack.com/files-pri/T1-F1/a.png', signal)).rejects.toThrow(/files:read/);
  });
});
