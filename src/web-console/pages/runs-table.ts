import type { ConsoleRun } from '../../admin/console-queries.js';
import { clip, formatCount, formatTime, formatUsd } from '../format.js';
import { html, type Html } from '../html.js';
import { statusPill } from '../layout.js';

/** Where a conversation key says a run is: `slack · C0123 · thread 1700000000.0001`. */
export function placeOf(conversationId: string): string {
  const [platform = '', , channel = '', thread = '-'] = conversationId.split(':');
  return `${platform} · ${channel}${thread !== '-' ? ` · thread ${thread}` : ''}`;
}

/** A table of runs; each links to its timeline. Used by the Overview, the Runs page and its live updates. */
export function runsTable(runs: readonly ConsoleRun[], caption: string, empty: string): Html {
  if (runs.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="wrap">
    <table>
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Status</th>
          <th scope="col">Where</th>
          <th scope="col">For</th>
          <th scope="col" class="num">Steps</th>
          <th scope="col" class="num">Tokens</th>
          <th scope="col" class="num">Cost</th>
          <th scope="col">Process</th>
          <th scope="col">Started</th>
        </tr>
      </thead>
      <tbody>
        ${runs.map(
          (r) =>
            html`<tr>
              <th scope="row">
                <a href="/admin/runs/${encodeURIComponent(r.id)}">${r.title ? clip(r.title, 60) : r.id.slice(0, 8)}</a
                >${r.taskId !== null ? html` <span class="muted">#${r.taskId}</span>` : ''}
              </th>
              <td>
                ${statusPill(r.status)}${r.waitingOn ? html`<div class="muted">${clip(r.waitingOn, 60)}</div>` : ''}
              </td>
              <td>${placeOf(r.conversationId)}</td>
              <td>${r.principal ?? '—'}</td>
              <td class="num">${formatCount(r.steps)}</td>
              <td class="num">${formatCount(r.tokens)}</td>
              <td class="num">${formatUsd(r.usd)}</td>
              <td>${r.owner ?? '—'}</td>
              <td>${formatTime(r.startedAt)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
