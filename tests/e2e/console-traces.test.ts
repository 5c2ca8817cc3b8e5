import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createMcpHub } from '../../src/composition/mcp-hub.js';
import { principalPseudonym, pseudonymKey } from '../../src/telemetry/principal-pseudonym.js';
import { loadTracing } from '../../src/telemetry/load-tracing.js';
import type { Tracing } from '../../src/telemetry/tracing.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeCollector, type FakeCollector, type ReceivedSpan } from '../fakes/fake-otlp-collector.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/http-fixture-server.js';
import { capturingLogger, settings } from '../fixtures/mcp/mcp-test-kit.js';

interface Traced {
  app: App;
  model: FakeOpenAI;
  collector: FakeCollector;
  fixture: HttpFixture;
  tracing: Tracing;
  log: ReturnType<typeof capturingLogger>;
  type(line: string): void;
  printed(): string;
  close(): Promise<void>;
}

let running: Traced | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

const QUESTION = 'please echo the words PRIVATE-QUESTION-TEXT';
const ANSWER = 'The echo said PRIVATE-ANSWER-TEXT.';

/**
 * Errand in the console adapter as main.ts builds it with OTEL_EXPORTER_OTLP_ENDPOINT set: tracing loaded from
 * the standard variables, the MCP hub (one HTTP server, `docs`) adding trace headers, spans sent to a local
 * collector in OTLP/HTTP JSON.
 */
async function start(env: Record<string, string> = {}): Promise<Traced> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-traces-'));
  const collector = await startFakeCollector();
  const fixture = await startHttpFixture({ mode: 'streamable' });
  const model = await startFakeOpenAI();
  model.usageWith(() => ({ promptTokens: 700, completionTokens: 300, cachedTokens: 200 }));
  const log = capturingLogger();
  const tracing = await loadTracing(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '20',
      OTEL_SERVICE_NAME: 'errand-test',
      ...env,
    },
    log.logger,
  );
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
  });
  const hub = createMcpHub({
    servers: { docs: settings({ url: fixture.url, approval: 'never' }) },
    logger: log.logger,
    injectTraceHeaders: (h) => tracing.injectHeaders(h),
  });
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (d: Buffer) => {
    printed += d.toString('utf8');
  });
  const app = await createApp({
    config,
    adapters: [createConsoleAdapter({ input, output, timezone: 'UTC' })],
    clock: new FakeClock(),
    modelBackoffMs: () => 5,
    tracing,
    externalTools: hub,
    logger: log.logger,
  });
  await app.start();
  return {
    app,
    model,
    collector,
    fixture,
    tracing,
    log,
    type: (line) => void input.write(`${line}\n`),
    printed: () => printed,
    async close() {
      await app.stop();
      await tracing.shutdown();
      await Promise.all([model.close(), fixture.close(), collector.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Asks a question whose run calls the server's echo and fail tools, then answers; resolves once its spans are in. */
async function askAndCollect(t: Traced): Promise<ReceivedSpan[]> {
  t.model.reply(
    {
      toolCalls: [
        { name: 'docs__echo', arguments: { text: 'hi' } },
        { name: 'docs__fail', arguments: {} },
      ],
    },
    { text: ANSWER },
  );
  t.type(QUESTION);
  await waitFor(() => t.printed().includes(ANSWER), 10_000, 'the answer');
  await t.app.coordinator.idle();
  await waitFor(() => t.collector.spans.some((s) => s.name === 'invoke_agent errand'), 10_000, 'the run span');
  return t.collector.spans;
}

const named = (spans: readonly ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe('traces to an OTLP/HTTP collector', () => {
  it("sends a run's spans with the GenAI attributes: invoke_agent → chat, execute_tool (MCP server, error.type), deliver; traceparent to the HTTP MCP server", async () => {
    running = await start();
    const spans = await askAndCollect(running);
    // OTLP's default encoding, decoded from the wire format by the collector.
    expect(new Set(running.collector.encodings)).toEqual(new Set(['protobuf']));
    const [run, ...otherRuns] = named(spans, 'invoke_agent errand');
    expect(otherRuns).toEqual([]);
    expect(run!.parentSpanId).toBe('');
    expect(run!.service).toBe('errand-test');
    expect(run!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'errand',
      'errand.platform': 'console',
      'errand.principal': principalPseudonym(await pseudonymKey(undefined, running.app.store.traces), 'console:you'),
      'errand.run.outcome': 'completed',
      'errand.run.resumed': false,
    });
    expect(run!.attributes['errand.run_id']).toEqual(expect.any(String));
    expect(run!.attributes['errand.conversation_id']).toMatch(/^console:/);
    const child = (s: ReceivedSpan) => s.traceId === run!.traceId && s.parentSpanId === run!.spanId;

    const chats = named(spans, 'chat gpt-4o-mini');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(child(chat)).toBe(true);
      expect(chat.kind).toBe(3);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 700,
        'gen_ai.usage.output_tokens': 300,
        'gen_ai.usage.cache_read.input_tokens': 200,
        'gen_ai.request.stream': true,
        'server.address': '127.0.0.1',
      });
    }
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']]);
    expect(chats[1]!.attributes['gen_ai.response.time_to_first_chunk']).toEqual(expect.any(Number));

    const [echo] = named(spans, 'execute_tool docs__echo');
    expect(child(echo!)).toBe(true);
    expect(echo!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'docs__echo',
      'gen_ai.tool.type': 'extension',
      'errand.mcp.server': 'docs',
    });
    expect(echo!.attributes['gen_ai.tool.call.id']).toEqual(expect.any(String));
    expect(echo!.statusCode).toBe(0);
    const [failed] = named(spans, 'execute_tool docs__fail');
    expect(failed!.attributes['error.type']).toBe('tool_error');
    expect(failed!.statusCode).toBe(2);
    // The server's tools/call request carried the tool span's context: its trace, its span as parent.
    expect(running.fixture.traceparents).toContain(`00-${run!.traceId}-${echo!.spanId}-01`);

    const deliveries = named(spans, 'deliver answer');
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    for (const d of deliveries) {
      expect(child(d)).toBe(true);
      expect(d.attributes).toMatchObject({
        'errand.platform': 'console',
        'errand.run_id': run!.attributes['errand.run_id'],
        'errand.outbox.purpose': 'answer',
      });
    }
  });

  it('with OTEL_EXPORTER_OTLP_PROTOCOL=http/json sends the same run as JSON: the same tree and attributes', async () => {
    running = await start({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    const spans = await askAndCollect(running);
    expect(new Set(running.collector.encodings)).toEqual(new Set(['json']));
    const [run] = named(spans, 'invoke_agent errand');
    expect(run!.attributes).toMatchObject({
      'errand.platform': 'console',
      'errand.run.outcome': 'completed',
      'errand.principal': principalPseudonym(await pseudonymKey(undefined, running.app.store.traces), 'console:you'),
    });
    const under = (s: ReceivedSpan) => s.traceId === run!.traceId && s.parentSpanId === run!.spanId;
    const names = spans.filter(under).map((s) => s.name);
    expect(names.filter((n) => n === 'chat gpt-4o-mini')).toHaveLength(2);
    expect(names).toEqual(
      expect.arrayContaining(['execute_tool docs__echo', 'execute_tool docs__fail', 'deliver answer']),
    );
    expect(named(spans, 'execute_tool docs__fail')[0]!.attributes['error.type']).toBe('tool_error');
    expect(named(spans, 'chat gpt-4o-mini')[0]!.attributes['gen_ai.usage.input_tokens']).toBe(700);
  });

  it('carries no message text, tool arguments or results, and no platform id, unless the capture variable is set', async () => {
    running = await start();
    const spans = JSON.stringify(await askAndCollect(running));
    for (const secret of [
      'PRIVATE-QUESTION-TEXT',
      'PRIVATE-ANSWER-TEXT',
      'console:you',
      'gen_ai.input.messages',
      'gen_ai.output.messages',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
    ]) {
      expect(spans).not.toContain(secret);
    }
  });

  it('with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true carries the messages, tool arguments and results, and the principal', async () => {
    running = await start({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    const spans = await askAndCollect(running);
    const [run] = named(spans, 'invoke_agent errand');
    expect(run!.attributes['errand.principal']).toBe('console:you');
    const chats = named(spans, 'chat gpt-4o-mini');
    expect(String(chats[0]!.attributes['gen_ai.input.messages'])).toContain('PRIVATE-QUESTION-TEXT');
    expect(String(chats[1]!.attributes['gen_ai.output.messages'])).toContain('PRIVATE-ANSWER-TEXT');
    const [echo] = named(spans, 'execute_tool docs__echo');
    expect(JSON.parse(String(echo!.attributes['gen_ai.tool.call.arguments']))).toEqual({ text: 'hi' });
    expect(String(echo!.attributes['gen_ai.tool.call.result'])).toContain('hi');
  });
});

describe('a collector that is down', () => {
  /** Milliseconds from typing a question to its answer on the console. */
  async function answerMs(t: Traced, n: number): Promise<number> {
    t.model.reply({ text: `Answer ${n}.` });
    const started = performance.now();
    t.type(`question ${n}`);
    await waitFor(() => t.printed().includes(`Answer ${n}.`), 10_000, `answer ${n}`);
    const ms = performance.now() - started;
    await t.app.coordinator.idle();
    return ms;
  }

  it('refusing every export: runs are answered as usual, spans are dropped, and it is said once', async () => {
    // 503 is retried until the export's time limit: a short one, so the test sees failures soon.
    running = await start({ OTEL_EXPORTER_OTLP_TIMEOUT: '300' });
    const t = running;
    t.collector.setMode('refuse');
    const failures = (level: number) =>
      t.log.lines.filter((l) => l.level === level && l.msg.startsWith('sending traces failed'));
    await answerMs(t, 1);
    await waitFor(() => failures(40).length > 0, 10_000, 'the first failed export');
    for (let i = 2; i <= 3; i++) await answerMs(t, i);
    await waitFor(() => failures(20).length > 0, 10_000, 'a later failed export');
    expect(failures(40)).toHaveLength(1);
    expect(t.collector.spans).toEqual([]);
  });

  it('hanging: a run is not slowed (its answer does not wait for the export timeout), and stopping does not hang', async () => {
    running = await start({ OTEL_EXPORTER_OTLP_TIMEOUT: '10000' });
    // Tracing on and working, for the comparison.
    await answerMs(running, 0);
    const healthy = [];
    for (let i = 1; i <= 3; i++) healthy.push(await answerMs(running, i));
    running.collector.setMode('hang');
    const hung = [];
    for (let i = 4; i <= 6; i++) hung.push(await answerMs(running, i));
    await waitFor(() => running!.collector.hanging() >= 1, 10_000, 'an export left hanging');
    // An export held for its 10 s timeout would show in every answer: none waits for it.
    expect(Math.max(...hung)).toBeLessThan(2_000);
    expect(Math.max(...hung)).toBeLessThan(Math.max(...healthy) * 3 + 500);
    const stopping = performance.now();
    await running.app.stop();
    await running.tracing.shutdown();
    expect(performance.now() - stopping).toBeLessThan(5_000);
  });
});
