import { AUDIT_KINDS } from '../../audit/audit-entry.js';
import type { ChainCheck } from '../../audit/audit-chain.js';
import type { WebConsoleDeps } from '../console-deps.js';
import { clip, formatCount, formatTime } from '../format.js';
import { html, type Html } from '../html.js';

const PAGE = 100;

/** What an entry's detail says, in one line. */
function summary(kind: string, detail: Record<string, unknown>): string {
  const s = (k: string) => (typeof detail[k] === 'string' ? (detail[k] as string) : '');
  if (kind === 'tool_call')
    return `${s('tool')} ${detail.ok === false ? `failed: ${s('error')}` : 'ran'}${s('principal') ? ` for ${s('principal')}` : ''}`;
  if (kind === 'approval') return `${s('tool')}: ${s('decision')}`;
  if (kind === 'config')
    return `${detail.first === true ? 'configuration at the first start' : 'configuration changed'}: ${Array.isArray(detail.changed) ? (detail.changed as unknown[]).join(', ') : ''}`;
  return s('action') ? `${s('action')}${s('target') ? ` ${s('target')}` : ''}` : kind;
}

/** The audit log, newest first, filterable by kind, with a link to the chain check. */
export async function auditBody(deps: WebConsoleDeps, query: URLSearchParams): Promise<Html> {
  const kind = (AUDIT_KINDS as readonly string[]).includes(query.get('kind') ?? '')
    ? (query.get('kind') as string)
    : undefined;
  const before = /^\d+$/.test(query.get('before') ?? '') ? Number(query.get('before')) : null;
  const rows = await deps.auditStore.page(kind ? { kind } : {}, before, PAGE);
  const filter = (k: string | undefined, label: string) =>
    k === kind
      ? html`<strong aria-current="page">${label}</strong>`
      : html`<a href="/admin/audit${k ? `?kind=${k}` : ''}">${label}</a>`;
  return html`<p>
      Every tool call, approval and change, append-only. Each entry is chained to the one before it by a SHA-256 hash,
      so an edited, removed or inserted entry shows: <a href="/admin/audit/check">check the chain now</a>.
    </p>
    <nav class="pager" aria-label="Kinds of entries">
      ${filter(undefined, 'All')}${AUDIT_KINDS.map((k) => filter(k, k.replace('_', ' ')))}
    </nav>
    ${
      rows.length === 0
        ? html`<p class="muted">No entries.</p>`
        : html`<div class="wrap">
            <table>
              <caption>
                Audit entries, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">When</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">Run</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map((r) => {
                  const entry = JSON.parse(r.entry) as { detail?: Record<string, unknown> };
                  const detail = entry.detail ?? {};
                  return html`<tr>
                    <th scope="row">${r.id}</th>
                    <td>${formatTime(r.at)}</td>
                    <td>${r.kind.replace('_', ' ')}</td>
                    <td>
                      ${r.actor ?? (r.kind === 'tool_call' ? 'the model' : r.kind === 'config' ? 'Errand, at start-up' : '—')}
                    </td>
                    <td>${clip(summary(r.kind, detail), 140)}</td>
                    <td>
                      ${r.runId ? html`<a href="/admin/runs/${encodeURIComponent(r.runId)}">${r.runId.slice(0, 8)}</a>` : '—'}
                    </td>
                    <td>
                      <details>
                        <summary>Entry ${r.id}</summary>
                        <pre>${JSON.stringify(detail, null, 2)}</pre>
                        <p class="muted">hash ${r.hash.slice(0, 16)}…</p>
                      </details>
                    </td>
                  </tr>`;
                })}
              </tbody>
            </table>
          </div>`
    }
    <nav class="pager" aria-label="Pages of entries">
      ${before !== null ? html`<a href="/admin/audit${kind ? `?kind=${kind}` : ''}">Newest</a>` : ''}${rows.length === PAGE ? html`<a href="/admin/audit?before=${rows.at(-1)!.id}${kind ? `&kind=${kind}` : ''}">Older</a>` : ''}
    </nav>`;
}

/** The chain check's verdict. */
export function auditCheckBody(check: ChainCheck): Html {
  if (check.intact)
    return html`<div class="notice" role="status">
        <strong>The chain is intact.</strong> All ${formatCount(check.entries)} entries link up, each hash matching its
        content.
      </div>
      <p>Last hash: <code>${check.lastHash}</code></p>
      <p><a href="/admin/audit">Back to the audit log</a> · <a href="/admin/audit/check.json">as JSON</a></p>`;
  return html`<div class="problem" role="alert">
      <strong>The chain is broken at entry ${check.brokenAt}:</strong> ${check.reason}.
    </div>
    <p>${formatCount(check.entries)} entries before it link up. Entries from ${check.brokenAt} on cannot be trusted.</p>
    <p><a href="/admin/audit">Back to the audit log</a> · <a href="/admin/audit/check.json">as JSON</a></p>`;
}
