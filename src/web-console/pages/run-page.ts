import type { ConsoleRun } from '../../admin/console-queries.js';
import type { StoredAuditRow } from '../../audit/audit-store.js';
import type { MessageRow } from '../../db/schema.js';
import type { WebConsoleDeps } from '../console-deps.js';
import { clip, formatCount, formatDuration, formatTime, formatUsd, prettyJson } from '../format.js';
import { html, type Html } from '../html.js';
import { statusPill } from '../layout.js';
import { placeOf } from './runs-table.js';

/** Longest tool result shown on a timeline (the transcript keeps it whole). */
const RESULT_SHOWN = 2_000;

/** Everything one run's page shows. */
export interface RunView {
  readonly run: ConsoleRun;
  readonly messages: readonly MessageRow[];
  readonly approvals: readonly StoredAuditRow[];
  readonly trace: string | null;
}

export async function runView(deps: WebConsoleDeps, id: string): Promise<RunView | null> {
  const run = await deps.queries.run(id);
  if (!run) return null;
  const [messages, approvals, trace] = await Promise.all([
    deps.queries.runMessages(run.conversationId, id),
    deps.auditStore.page({ runId: id, kind: 'approval' }, null, 200),
    deps.queries.traceOf(id),
  ]);
  return { run, messages, approvals: [...approvals].reverse(), trace };
}

/** The trace id of a W3C traceparent (`00-<trace id>-<span id>-<flags>`). */
function traceIdOf(traceparent: string | null): string | null {
  return traceparent?.split('-')[1] ?? null;
}

function facts(r: ConsoleRun, trace: string | null): Html {
  const ended = r.endedAt ?? null;
  return html`<dl class="facts">
    <dt>Status</dt>
    <dd>${statusPill(r.status)}${r.waitingOn ? html` waiting on: ${r.waitingOn}` : ''}</dd>
    <dt>Where</dt>
    <dd>${placeOf(r.conversationId)}</dd>
    <dt>To-do</dt>
    <dd>${r.taskId !== null ? html`#${r.taskId} ${r.title ?? ''}` : '—'}</dd>
    <dt>Acts for</dt>
    <dd>${r.principal ?? '—'}</dd>
    <dt>Steps</dt>
    <dd>${formatCount(r.steps)}</dd>
    <dt>Tokens</dt>
    <dd>${formatCount(r.tokens)}</dd>
    <dt>Cost</dt>
    <dd>${formatUsd(r.usd)}</dd>
    <dt>Trace id</dt>
    <dd>${traceIdOf(trace) ?? html`<span class="muted">none (tracing off)</span>`}</dd>
    <dt>Process</dt>
    <dd>
      ${r.owner ?? '—'}${r.leaseUntil ? html` <span class="muted">(lease until ${formatTime(r.leaseUntil)})</span>` : ''}
    </dd>
    <dt>Started</dt>
    <dd>${formatTime(r.startedAt)}</dd>
    <dt>${ended ? 'Ended' : 'Running for'}</dt>
    <dd>
      ${ended ? html`${formatTime(ended)} (${formatDuration(ended - r.startedAt)})` : formatDuration(r.updatedAt - r.startedAt)}
    </dd>
    ${
      r.error
        ? html`<dt>Error</dt>
            <dd>${r.error}</dd>`
        : ''
    }${
      r.summary
        ? html`<dt>Summary</dt>
            <dd>${r.summary}</dd>`
        : ''
    }
  </dl>`;
}

function resultText(content: string | null): string {
  const pretty = prettyJson(content);
  return pretty.length > RESULT_SHOWN
    ? `${pretty.slice(0, RESULT_SHOWN)}\n… (${pretty.length - RESULT_SHOWN} more characters)`
    : pretty;
}

/**
 * What the timeline shows instead of a row private to one person (DESIGN.md "Private stays private in a shared
 * thread"): its results and the model's text written from them are that person's, and an operator sees nobody's
 * private material (as the Memories page shows no one's `me` memories). Tool names and arguments stay, as the audit
 * log keeps them.
 */
function privateNote(what: string, owner: string): Html {
  return html`<p class="muted">(${what} private to ${owner}: not shown here)</p>`;
}

/** One transcript row on the timeline: the request, the model's text and tool calls (with their results), or a person's reply. */
function entry(m: MessageRow, results: ReadonlyMap<string, MessageRow>): Html | null {
  const at = html`<time datetime="${new Date(m.createdAt).toISOString()}">${formatTime(m.createdAt)}</time>`;
  if (m.role === 'user')
    return html`<li>
      <div class="entry-head">Request${m.authorId ? html` from ${m.authorId}` : ''}${at}</div>
      <pre>${clip(m.content ?? '', 4000)}</pre>
    </li>`;
  if (m.role !== 'assistant') return null;
  const calls = m.toolCalls ?? [];
  const text = m.content ? (m.privateTo ? privateNote('text', m.privateTo) : html`<pre>${m.content}</pre>`) : '';
  return html`<li>
    <div class="entry-head">
      Model step${calls.length > 0 ? html` — ${calls.length} tool call${calls.length === 1 ? '' : 's'}` : ''}${at}
    </div>
    ${text}
    ${calls.map((c) => {
      const result = results.get(c.id);
      const shown = result?.privateTo
        ? privateNote('a result', result.privateTo)
        : result
          ? html`<pre>${resultText(result.content)}</pre>`
          : null;
      return html`<div>
        <strong>${c.name}</strong> <span class="muted">call ${c.id}</span>
        <pre>${prettyJson(c.arguments)}</pre>
        ${
          shown
            ? html`<details>
                <summary>Result of ${c.name}</summary>
                ${shown}
              </details>`
            : html`<p class="muted">No result yet.</p>`
        }
      </div>`;
    })}
  </li>`;
}

function approvalsList(rows: readonly StoredAuditRow[]): Html {
  if (rows.length === 0) return html`<p class="muted">No tool call of this run needed an approval.</p>`;
  return html`<ul>
    ${rows.map((a) => {
      const e = JSON.parse(a.entry) as { detail?: { tool?: string; decision?: string } };
      const decision = e.detail?.decision ?? '?';
      const words =
        { once: 'allowed once', always: 'always allowed here', deny: 'denied', timeout: 'not decided in time' }[
          decision
        ] ?? decision;
      return html`<li>
        <strong>${e.detail?.tool ?? ''}</strong>: ${words}${a.actor ? html` by ${a.actor}` : ''}
        <span class="muted">${formatTime(a.at)}</span>
      </li>`;
    })}
  </ul>`;
}

/** The part live updates replace: facts, approvals, timeline. */
export function runFragment(v: RunView): Html {
  const results = new Map(v.messages.filter((m) => m.role === 'tool' && m.toolCallId).map((m) => [m.toolCallId!, m]));
  const entries = v.messages.map((m) => entry(m, results)).filter((e): e is Html => e !== null);
  return html`${facts(v.run, v.trace)}
    <h2 id="approvals">Approvals</h2>
    ${approvalsList(v.approvals)}
    <h2 id="timeline">Timeline</h2>
    ${
      entries.length > 0
        ? html`<ol class="timeline">
            ${entries}
          </ol>`
        : html`<p class="muted">Nothing recorded yet.</p>`
    }`;
}

/** A run's page: Stop while it is active, then what live updates keep current. */
export function runBody(v: RunView, csrf: string): Html {
  const active = v.run.status === 'running' || v.run.status === 'waiting_user';
  const id = encodeURIComponent(v.run.id);
  return html`${active ? html`<form method="post" action="/admin/runs/${id}/stop" class="actions"><input type="hidden" name="csrf" value="${csrf}" /><button type="submit" class="danger">Stop this run</button></form>` : ''}
    <div id="run-live" hx-ext="sse" sse-connect="/admin/runs/${id}/events" sse-swap="run">${runFragment(v)}</div>`;
}
