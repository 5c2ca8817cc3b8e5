import { afterEach, describe, expect, it } from 'vitest';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';
import { freePort } from '../support/free-port.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => h.close());

/** The note Errand posted about the failed run (its only post in the thread). */
async function failureNote(thread: ReturnType<Harness['adapter']['thread']>): Promise<string> {
  await waitFor(() => h.adapter.textsIn(thread).some((t) => /^(⚠️|❌) I couldn't finish/.test(t)));
  await h.app.coordinator.idle();
  return h.adapter.textsIn(thread).join('\n');
}

describe('what the thread and the log say when the model request fails', () => {
  it('names the error status and the endpoint’s own message for an HTTP 500, not "could not be reached"', async () => {
    const log = capturingLogger();
    h = await startHarness({}, { logger: log.logger });
    h.model.respondWith(() => ({ status: 500, error: 'upstream model overloaded' }));
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'hello');
    const note = await failureNote(thread);
    expect(note).toBe(
      "⚠️ I couldn't finish: the model service answered with an error (HTTP 500: upstream model overloaded). I'll try again in 60 s.",
    );
    const failed = log.lines.filter((l) => l.level === 50);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      status: 500,
      msg: `the model endpoint ${h.model.baseUrl} answered HTTP 500: upstream model overloaded; check the endpoint's health (after 4 attempts)`,
    });
    expect(log.text()).not.toMatch(/could not be reached|could not connect/);
  });

  it('says the endpoint refused the request, with its message but never the API key it echoes', async () => {
    const log = capturingLogger();
    h = await startHarness({ OPENAI_API_KEY: 'sk-live-0123456789abcdef' }, { logger: log.logger });
    h.model.respondWith(() => ({ status: 401, error: 'Incorrect API key provided: sk-live-0123456789abcdef.' }));
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'hello');
    const note = await failureNote(thread);
    expect(note).toBe(
      "❌ I couldn't finish this: the model service refused the request (HTTP 401: Incorrect API key provided: [redacted]).",
    );
    expect(log.text()).toMatch(/answered HTTP 401: Incorrect API key provided: \[redacted\]; check OPENAI_API_KEY/);
    expect(`${note}\n${JSON.stringify(log.lines)}`).not.toContain('0123456789abcdef');
  });

  it('says the connection was refused, with the host, when nothing listens at the endpoint', async () => {
    const log = capturingLogger();
    const port = await freePort();
    h = await startHarness(
      { OPENAI_BASE_URL: `http://user:hunter2@127.0.0.1:${port}/v1?api_key=hunter2` },
      { logger: log.logger },
    );
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'hello');
    const note = await failureNote(thread);
    expect(note).toBe(
      `⚠️ I couldn't finish: the model service at 127.0.0.1:${port} could not be reached (connection refused). I'll try again in 60 s.`,
    );
    expect(log.lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
      `could not connect to the model endpoint http://127.0.0.1:${port}/v1 (ECONNREFUSED); check OPENAI_BASE_URL and the network (after 4 attempts)`,
    ]);
    expect(JSON.stringify(log.lines)).not.toContain('hunter2');
  });
});
