import type { WebConsoleDeps } from '../console-deps.js';
import { html, type Html } from '../html.js';
import { runsTable } from './runs-table.js';

const PAGE = 50;

/** The part of the Runs page the live updates replace: runs active now, then the newest ones. */
export async function runsFragment(
  deps: WebConsoleDeps,
  before: number | null,
): Promise<{ body: Html; oldest: number | null; full: boolean }> {
  const [active, recent] = await Promise.all([deps.queries.activeRuns(200), deps.queries.recentRuns(before, PAGE)]);
  const body = html`${
      before === null
        ? html`<h2 id="active">Running or waiting</h2>
            ${runsTable(active, 'Runs running or waiting now, on every process', 'Nothing is running.')}`
        : ''
    }
    <h2 id="recent">${before === null ? 'Newest runs' : 'Older runs'}</h2>
    ${runsTable(recent, 'Runs by start, newest first', 'No runs yet.')}`;
  return { body, oldest: recent.at(-1)?.startedAt ?? null, full: recent.length === PAGE };
}

/**
 * Every run of the installation (every process's on PostgreSQL). With JavaScript the list follows the runs as they
 * go through server-sent events (htmx's sse extension swaps the list in); without it, it is as of the page load.
 */
export async function runsBody(deps: WebConsoleDeps, query: URLSearchParams): Promise<Html> {
  const before = /^\d+$/.test(query.get('before') ?? '') ? Number(query.get('before')) : null;
  const { body, oldest, full } = await runsFragment(deps, before);
  const live = before === null;
  return html`${live ? html`<p class="muted">This list updates by itself while the page is open.</p>` : ''}
    <div id="runs-live" ${live ? html` hx-ext="sse" sse-connect="/admin/runs/events" sse-swap="runs"` : ''}>
      ${body}
    </div>
    <nav class="pager" aria-label="Pages of runs">
      ${before !== null ? html`<a href="/admin/runs">Newest runs</a>` : ''}${full && oldest !== null ? html`<a href="/admin/runs?before=${oldest}">Older runs</a>` : ''}
    </nav>`;
}
