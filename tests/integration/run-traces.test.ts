import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Db } from '../../src/db/client.js';
import { silentLogger } from '../../src/logger.js';
import type { LlmClient } from '../../src/agent/llm-client.js';
import { traceLlm } from '../../src/agent/traced-llm.js';
import { createHash, randomBytes } from 'node:crypto';
import { createRunTracer } from '../../src/runs/runtime/run-tracing.js';
import { principalPseudonym, pseudonymKey, PSEUDONYM_KEY_NAME } from '../../src/telemetry/principal-pseudonym.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { loadTracing } from '../../src/telemetry/load-tracing.js';
import { traceSettingsFrom, tracesConfigured } from '../../src/telemetry/trace-settings.js';
import { noopTracing, type Tracing } from '../../src/telemetry/tracing.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeCollector, type FakeCollector } from '../fakes/fake-otlp-collector.js';
import { promiseHooksOn } from '../fakes/promise-hooks.js';
import { waitFor } from '../fakes/wait-for.js';

let dir = '';
let db: Db;
let store: Store;
let collector: FakeCollector;
const open: Tracing[] = [];
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errand-run-traces-'));
  db = openDatabase(join(dir, 'errand.db'));
  store = createSqliteStore(db, new FakeClock());
  collector = await startFakeCollector();
});
afterEach(async () => {
  for (const t of open.splice(0)) await t.shutdown();
  await collector.close();
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

/** A process's tracing to the collector (each process of a restart or a cluster has its own). */
async function processTracing(): Promise<Tracing> {
  const t = await loadTracing(
    { OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.endpoint}/`, OTEL_BSP_SCHEDULE_DELAY: '10' },
    silentLogger(),
  );
  open.push(t);
  return t;
}

const info = {
  runId: 'run-1',
  conversationId: 'slack:T0TEAM001:C0CHAN001:1700000000.000100',
  platform: 'slack',
  principal: 'slack:U0ALICE01',
  resumed: false,
};

describe('run spans across a restart', () => {
  it('a run resumed by another process links to the trace it started in, kept in the database', async () => {
    const first = createRunTracer(await processTracing(), store.traces, silentLogger());
    await first.trace(info, async () => ({
      kind: 'waiting',
      question: {
        question: 'Which one?',
        options: [],
        toolCallId: 'call_1',
        askedAt: 0,
        messageId: null,
        userId: 'U0ALICE01',
      },
    }));
    await waitFor(() => collector.spans.length === 1, 5_000, 'the first span');
    const started = collector.spans[0]!;
    expect(await store.traces.traceOf('run-1')).toBe(`00-${started.traceId}-${started.spanId}-01`);

    const second = createRunTracer(await processTracing(), store.traces, silentLogger());
    await second.trace({ ...info, resumed: true }, async () => ({ kind: 'completed', summary: null }));
    await waitFor(() => collector.spans.length === 2, 5_000, 'the resumed span');
    const resumed = collector.spans[1]!;
    expect(resumed.traceId).not.toBe(started.traceId);
    expect(resumed.links).toEqual([{ traceId: started.traceId, spanId: started.spanId }]);
    expect(resumed.attributes['errand.run.resumed']).toBe(true);
    // The first trace stays the one recorded.
    expect(await store.traces.traceOf('run-1')).toBe(`00-${started.traceId}-${started.spanId}-01`);
  });

  it('a run that failed marks its span with the outcome as error.type and carries its cost; while it runs its deliveries find it as their parent', async () => {
    const tracer = createRunTracer(await processTracing(), store.traces, silentLogger());
    let during: string | null = null;
    await tracer.trace({ ...info, principal: null, spentUsd: () => 0.0125 }, async () => {
      during = tracer.parentOf('run-1');
      return { kind: 'failed', reason: 'the model sent an empty answer twice', transient: false };
    });
    expect(during).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(tracer.parentOf('run-1')).toBeNull();
    await waitFor(() => collector.spans.length === 1, 5_000, 'the span');
    expect(collector.spans[0]).toMatchObject({
      statusCode: 2,
      attributes: { 'error.type': 'failed', 'errand.run.outcome': 'failed', 'errand.run.cost_usd': 0.0125 },
    });
    // An attribute without a value (no principal) is left out, not sent empty.
    expect(collector.spans[0]!.attributes).not.toHaveProperty('errand.principal');
  });

  it('a first execution that completes writes no trace; one still running after a second writes it (a crash later keeps the link)', async () => {
    const clock = new FakeClock();
    const tracer = createRunTracer(await processTracing(), store.traces, silentLogger(), clock);
    await tracer.trace(info, async () => ({ kind: 'completed', summary: 'done' }));
    expect(await store.traces.traceOf('run-1')).toBeNull();
    expect(clock.pendingTimers()).toBe(0);

    let finish = (): void => undefined;
    const running = tracer.trace(
      { ...info, runId: 'run-2' },
      () => new Promise((resolve) => (finish = () => resolve({ kind: 'completed', summary: null }))),
    );
    clock.advance(999);
    expect(await store.traces.traceOf('run-2')).toBeNull();
    clock.advance(1);
    const during = tracer.parentOf('run-2');
    expect(during).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(await store.traces.traceOf('run-2')).toBe(during);
    finish();
    await running;
    expect(await store.traces.traceOf('run-2')).toBe(during);
  });

  it('a first execution that ends other than completed (stopped by a shutdown, failed) writes its trace at once', async () => {
    const tracer = createRunTracer(await processTracing(), store.traces, silentLogger(), new FakeClock());
    let during: string | null = null;
    await tracer.trace(info, async () => ((during = tracer.parentOf('run-1')), { kind: 'aborted' }));
    expect(await store.traces.traceOf('run-1')).toBe(during);
    await expect(tracer.trace({ ...info, runId: 'run-3' }, () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await store.traces.traceOf('run-3')).toMatch(/^00-/);
  });

  it("a run and its model requests need no async context (no promise hook on Node 20): a request's span finds its run's by the run id", async () => {
    const tracing = await processTracing();
    const tracer = createRunTracer(tracing, store.traces, silentLogger(), new FakeClock());
    const hooked: boolean[] = [];
    const model: LlmClient = {
      complete: async () => (
        hooked.push(await promiseHooksOn()),
        { text: 'Hi.', toolCalls: [], finishReasons: ['stop'] }
      ),
    };
    const llm = traceLlm(model, tracing, {
      defaultModel: 'gpt-4o-mini',
      streamed: false,
      parentOf: (id) => tracer.parentOf(id),
    });
    // Test files share a worker: one that left a storage of its own on (the PostgreSQL store's) hooks every promise
    // anyway, and then only "tracing adds no hook" can be seen. In a clean worker: no hook at all.
    const baseline = await promiseHooksOn();
    await tracer.trace(info, async () => {
      hooked.push(await promiseHooksOn());
      await llm.complete({
        messages: [{ role: 'user', content: 'hello' }],
        tools: [],
        signal: new AbortController().signal,
        runId: 'run-1',
      });
      return { kind: 'completed', summary: 'Hi.' };
    });
    expect(hooked).toEqual([baseline, baseline]);
    await waitFor(() => collector.spans.length === 2, 5_000, 'both spans');
    const run = collector.spans.find((s) => s.name === 'invoke_agent errand')!;
    const chat = collector.spans.find((s) => s.name === 'chat gpt-4o-mini')!;
    expect(chat).toMatchObject({ traceId: run.traceId, parentSpanId: run.spanId });
    // A span made the active one (a tool call's, for the MCP request's traceparent) turns the storage on only while it is open.
    await tracing.span('execute_tool search', {}, async () => expect(await promiseHooksOn()).toBe(true));
    expect(await promiseHooksOn()).toBe(baseline);
  });

  it('with tracing off reads and writes nothing', async () => {
    const tracer = createRunTracer(
      noopTracing,
      {
        traceOf: () => Promise.reject(new Error('read')),
        recordTrace: () => Promise.reject(new Error('written')),
        deploymentKey: () => Promise.reject(new Error('key read')),
      },
      silentLogger(),
    );
    expect(await tracer.trace(info, async () => ({ kind: 'completed', summary: 'done' }))).toEqual({
      kind: 'completed',
      summary: 'done',
    });
  });
});

describe('the principal on a run span', () => {
  const principalOf = async (tracer: ReturnType<typeof createRunTracer>, runId: string) => {
    await tracer.trace({ ...info, runId }, async () => ({ kind: 'completed', summary: 'done' }));
    await waitFor(
      () => collector.spans.find((s) => s.attributes['errand.run_id'] === runId),
      5_000,
      `the span of ${runId}`,
    );
    return collector.spans.find((s) => s.attributes['errand.run_id'] === runId)!.attributes['errand.principal'];
  };

  it('is an HMAC under the key stored once in the database: the same for every process, and not the unkeyed hash of the id', async () => {
    const first = await principalOf(
      createRunTracer(await processTracing(), store.traces, silentLogger(), new FakeClock()),
      'run-a',
    );
    const second = await principalOf(
      createRunTracer(await processTracing(), store.traces, silentLogger(), new FakeClock()),
      'run-b',
    );
    const key = Buffer.from(await store.traces.deploymentKey(PSEUDONYM_KEY_NAME, 'unused'), 'base64');
    expect(key).toHaveLength(32);
    expect(first).toBe(principalPseudonym(key, 'slack:U0ALICE01'));
    expect(second).toBe(first);
    expect(first).not.toBe(createHash('sha256').update('slack:U0ALICE01').digest('hex').slice(0, 16));
  });

  it('is keyed by ERRAND_SECRET_KEY when it is set (derived from it, stored nowhere), so each deployment names people differently', async () => {
    const secret = randomBytes(32).toString('base64');
    const other = randomBytes(32).toString('base64');
    const keyed = await principalOf(
      createRunTracer(await processTracing(), store.traces, silentLogger(), new FakeClock(), secret),
      'run-c',
    );
    const elsewhere = await principalOf(
      createRunTracer(await processTracing(), store.traces, silentLogger(), new FakeClock(), other),
      'run-d',
    );
    expect(keyed).toBe(principalPseudonym(await pseudonymKey(secret, store.traces), 'slack:U0ALICE01'));
    expect(elsewhere).not.toBe(keyed);
    expect(db.$client.prepare('select count(*) as n from deployment_keys').get()).toEqual({ n: 0 });
  });
});

describe('trace settings from the standard variables', () => {
  it('are off without an OTLP endpoint (or with OTEL_SDK_DISABLED), and loading them then gives the no-op tracing', async () => {
    expect(tracesConfigured({})).toBe(false);
    expect(tracesConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBe(
      false,
    );
    expect(await loadTracing({ OTEL_SERVICE_NAME: 'x' }, silentLogger())).toBe(noopTracing);
  });

  it('read the endpoint, service, headers, time limits, batching and the capture flag', () => {
    expect(
      traceSettingsFrom({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com:4318/',
        OTEL_SERVICE_NAME: 'errand-prod',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D,team=ops',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
        OTEL_BSP_SCHEDULE_DELAY: '1000',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
      }),
    ).toEqual({
      url: 'https://otel.example.com:4318/v1/traces',
      serviceName: 'errand-prod',
      headers: { 'x-api-key': 'abc=', team: 'ops' },
      exportTimeoutMs: 2500,
      scheduleDelayMs: 1000,
      maxQueueSize: 2048,
      maxExportBatchSize: 64,
      captureContent: true,
      protocol: 'http/protobuf',
      protocolNote: null,
    });
    const traces = traceSettingsFrom({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://jaeger:4318/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    });
    expect(traces).toMatchObject({
      url: 'http://jaeger:4318/v1/traces',
      serviceName: 'errand',
      captureContent: false,
      exportTimeoutMs: 10_000,
      protocol: 'http/protobuf',
      protocolNote: null,
    });
    // The operator's batch size wins over Errand's default; a batch is never larger than the queue.
    expect(
      traceSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512' })!
        .maxExportBatchSize,
    ).toBe(512);
    expect(
      traceSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_BSP_MAX_QUEUE_SIZE: '16' })!
        .maxExportBatchSize,
    ).toBe(16);
  });

  it('send http/protobuf (the OTLP default) unless http/json is asked for; gRPC is not spoken, and that is said', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(traceSettingsFrom(endpoint)).toMatchObject({ protocol: 'http/protobuf', protocolNote: null });
    expect(traceSettingsFrom({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({
      protocol: 'http/json',
      protocolNote: null,
    });
    // The traces variable wins over the general one.
    expect(
      traceSettingsFrom({
        ...endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toMatchObject({ protocol: 'http/protobuf' });
    const grpc = traceSettingsFrom({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(grpc).toMatchObject({ protocol: 'http/protobuf' });
    expect(grpc!.protocolNote).toMatch(/OTLP\/HTTP only, as http\/protobuf/);
  });
});
