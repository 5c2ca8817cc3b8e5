import { describe, expect, it } from 'vitest';
import type { LlmClient, LlmRequest } from '../../src/agent/llm-client.js';
import { openDatabase } from '../../src/db/client.js';
import { silentLogger } from '../../src/logger.js';
import { countingSink } from '../../src/metrics/counting-sink.js';
import { instrumentLlm } from '../../src/agent/instrumented-llm.js';
import { createSqliteGaugeReader } from '../../src/store/sqlite/sqlite-gauges.js';
import { noopMetrics } from '../../src/metrics/metrics.js';
import { createPrometheusMetrics } from '../../src/metrics/prometheus-metrics.js';
import { parseExposition } from '../e2e/prometheus-text.js';
import { RecordingMetrics } from '../fakes/recording-metrics.js';

const request: LlmRequest = {
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  signal: new AbortController().signal,
};

describe('no-op metrics', () => {
  it('accepts every event and records nothing', () => {
    expect(() => {
      noopMetrics.runFinished('completed', 1);
      noopMetrics.modelRequest(0.5, { promptTokens: 1, completionTokens: 1 });
      noopMetrics.inbound('slack');
      noopMetrics.outbound('slack');
      noopMetrics.rateLimited('slack');
      noopMetrics.scheduleFired('started');
      noopMetrics.mcpOAuth('linear', 'token');
    }).not.toThrow();
  });
});

describe('prom-client metrics', () => {
  it('renders every Errand metric with its labels, in valid exposition format', async () => {
    const p = createPrometheusMetrics(silentLogger());
    p.metrics.runFinished('completed', 12);
    p.metrics.runFinished('failed', null);
    p.metrics.modelRequest(0.3, { promptTokens: 100, completionTokens: 20 });
    p.metrics.modelRequest(1.5, null);
    p.metrics.modelCost('gpt-4o-mini', 0.25);
    p.metrics.modelCost('gpt-4o-mini', 0.5);
    p.metrics.inbound('slack');
    p.metrics.inbound('slack');
    p.metrics.outbound('discord');
    p.metrics.rateLimited('discord');
    p.metrics.scheduleFired('skipped');
    p.metrics.mcpOAuth('linear', 'authorize');
    p.metrics.mcpOAuth('linear', 'connected');
    p.metrics.mcpOAuth('linear', 'token');
    p.metrics.mcpOAuth('linear', 'token');
    p.readGaugesFrom(async () => ({ runsActive: 2, tasksPending: 7 }));
    const { contentType, body } = await p.render();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const e = parseExposition(body);
    expect(e.value('errand_runs_total', { outcome: 'completed' })).toBe(1);
    expect(e.value('errand_runs_total', { outcome: 'failed' })).toBe(1);
    expect(e.value('errand_run_duration_seconds_count')).toBe(1);
    expect(e.value('errand_run_duration_seconds_sum')).toBe(12);
    expect(e.value('errand_model_request_duration_seconds_count')).toBe(2);
    expect(e.value('errand_model_request_duration_seconds_bucket', { le: '0.5' })).toBe(1);
    expect(e.value('errand_model_tokens_total', { kind: 'prompt' })).toBe(100);
    expect(e.value('errand_model_tokens_total', { kind: 'completion' })).toBe(20);
    expect(e.value('errand_cost_usd_total', { model: 'gpt-4o-mini' })).toBe(0.75);
    expect(e.value('errand_inbound_events_total', { platform: 'slack' })).toBe(2);
    expect(e.value('errand_outbound_messages_total', { platform: 'discord' })).toBe(1);
    expect(e.value('errand_platform_rate_limited_total', { platform: 'discord' })).toBe(1);
    expect(e.value('errand_schedule_fires_total', { outcome: 'skipped' })).toBe(1);
    expect(e.value('errand_mcp_oauth_total', { server: 'linear', outcome: 'token' })).toBe(2);
    expect(e.value('errand_mcp_oauth_total', { server: 'linear', outcome: 'connected' })).toBe(1);
    expect(e.value('errand_runs_active')).toBe(2);
    expect(e.value('errand_tasks_pending')).toBe(7);
    expect(e.types.get('process_resident_memory_bytes')).toBe('gauge');
  });

  it("shows the PostgreSQL pool's use read at scrape time, and no pool metrics where there is no pool", async () => {
    const p = createPrometheusMetrics(silentLogger());
    p.readGaugesFrom(async () => ({ runsActive: 0, tasksPending: 0 }));
    expect(
      [...parseExposition((await p.render()).body).types.keys()].filter((n) => n.startsWith('errand_db_pool')),
    ).toEqual([]);
    let use = { size: 4, busy: 3, idle: 1, waiting: 2, waits: 5, waitedSeconds: 0.25 };
    p.readPoolFrom(() => use);
    let e = parseExposition((await p.render()).body);
    expect(e.value('errand_db_pool_size')).toBe(4);
    expect(e.value('errand_db_pool_connections', { state: 'busy' })).toBe(3);
    expect(e.value('errand_db_pool_connections', { state: 'idle' })).toBe(1);
    expect(e.value('errand_db_pool_waiting')).toBe(2);
    expect(e.value('errand_db_pool_waits_total')).toBe(5);
    expect(e.value('errand_db_pool_wait_seconds_total')).toBe(0.25);
    expect(e.types.get('errand_db_pool_waits_total')).toBe('counter');
    use = { ...use, busy: 0, idle: 4, waiting: 0, waits: 7, waitedSeconds: 0.5 };
    e = parseExposition((await p.render()).body);
    expect(e.value('errand_db_pool_connections', { state: 'busy' })).toBe(0);
    expect(e.value('errand_db_pool_waits_total')).toBe(7);
    expect(e.value('errand_db_pool_wait_seconds_total')).toBe(0.5);
  });

  it('reads the gauges once per scrape, at scrape time', async () => {
    const p = createPrometheusMetrics(silentLogger());
    let reads = 0;
    p.readGaugesFrom(async () => ({ runsActive: ++reads, tasksPending: 0 }));
    expect(reads).toBe(0);
    expect(parseExposition((await p.render()).body).value('errand_runs_active')).toBe(1);
    expect(parseExposition((await p.render()).body).value('errand_runs_active')).toBe(2);
    expect(reads).toBe(2);
  });

  it('shows the gauges as NaN and still renders the counters when the database cannot be read', async () => {
    const p = createPrometheusMetrics(silentLogger());
    p.metrics.inbound('slack');
    p.readGaugesFrom(async () => {
      throw new Error('database closed');
    });
    const e = parseExposition((await p.render()).body);
    expect(e.value('errand_runs_active')).toBeNaN();
    expect(e.value('errand_inbound_events_total', { platform: 'slack' })).toBe(1);
  });

  it('keeps a registry of its own: two instances do not share counts', async () => {
    const a = createPrometheusMetrics(silentLogger());
    const b = createPrometheusMetrics(silentLogger());
    a.metrics.outbound('slack');
    expect(
      parseExposition((await b.render()).body).value('errand_outbound_messages_total', { platform: 'slack' }),
    ).toBeUndefined();
  });
});

describe('gauge queries', () => {
  it('count active runs and pending tasks through the partial indexes', () => {
    const db = openDatabase(':memory:');
    expect(createSqliteGaugeReader(db)()).toEqual({ runsActive: 0, tasksPending: 0 });
    const plans = [
      "select count(*) as n from runs where status in ('running', 'waiting_user')",
      "select count(*) as n from tasks where status in ('pending', 'in_progress') and status = 'pending'",
    ].map((q) =>
      (db.$client.prepare(`explain query plan ${q}`).all() as { detail: string }[]).map((r) => r.detail).join(' '),
    );
    expect(plans[0]).toMatch(/USING (COVERING )?INDEX runs_one_active_per_conversation/);
    expect(plans[1]).toMatch(/USING (COVERING )?INDEX tasks_open_idx/);
    db.$client.close();
  });
});

describe('model request timing', () => {
  it('reports each request with its duration and token usage', async () => {
    const metrics = new RecordingMetrics();
    let t = 1000;
    const llm: LlmClient = {
      async complete() {
        t += 2500;
        return { text: 'hi', toolCalls: [], usage: { promptTokens: 10, completionTokens: 2 } };
      },
    };
    await instrumentLlm(llm, metrics, () => t).complete(request);
    expect(metrics.modelRequests).toEqual([{ seconds: 2.5, usage: { promptTokens: 10, completionTokens: 2 } }]);
  });

  it("reports a priced model's cost in dollars, and nothing for a model without a price", async () => {
    const metrics = new RecordingMetrics();
    let model = 'gpt-4o-mini';
    const llm: LlmClient = {
      async complete() {
        return {
          text: 'hi',
          toolCalls: [],
          usage: { promptTokens: 1_000_000, completionTokens: 500_000, cachedTokens: 400_000, model },
        };
      },
    };
    const pricing = { 'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 } };
    const instrumented = instrumentLlm(llm, metrics, () => 0, pricing);
    await instrumented.complete(request);
    model = 'llama3';
    await instrumented.complete(request);
    expect(metrics.costs).toHaveLength(1);
    expect(metrics.costs[0]!.model).toBe('gpt-4o-mini');
    expect(metrics.costs[0]!.usd).toBeCloseTo(0.6 * 0.15 + 0.4 * 0.075 + 0.5 * 0.6, 10);
  });

  it('reports a failed request without usage and passes the error on', async () => {
    const metrics = new RecordingMetrics();
    const llm: LlmClient = {
      async complete() {
        throw new Error('refused');
      },
    };
    await expect(instrumentLlm(llm, metrics, () => 0).complete(request)).rejects.toThrow('refused');
    expect(metrics.modelRequests).toEqual([{ seconds: 0, usage: null }]);
  });
});

describe('inbound counting', () => {
  it('counts every event an adapter delivers under its platform, then hands it on', async () => {
    const metrics = new RecordingMetrics();
    const seen: string[] = [];
    const sink = countingSink(
      {
        onMessage: async (m) => void seen.push(m.messageId),
        onCommand: async (c) => ({ text: c.name }),
        onAction: async () => null,
        knowsConversation: async () => false,
      },
      'slack',
      metrics,
    );
    const conversation = { platform: 'slack', workspace: 'T1', channel: 'C1', thread: null };
    await sink.onMessage({ messageId: 'm1', conversation, userId: 'U1', text: 'hi' });
    expect(
      await sink.onCommand({ name: 'help', args: '', channel: conversation, conversation: null, userId: 'U1' }),
    ).toEqual({ text: 'help' });
    await sink.onAction({ kind: 'stop', runId: 'r1', userId: 'U1', conversation });
    expect(seen).toEqual(['m1']);
    expect(metrics.inbounds).toEqual(['slack', 'slack', 'slack']);
  });
});
