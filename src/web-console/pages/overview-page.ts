import type { ClusterProcessInfo } from '../../admin/cluster-view.js';
import type { ConsoleCounts, ConsoleRun } from '../../admin/console-queries.js';
import type { SandboxState } from '../../sandbox/sandbox-status.js';
import type { HealthReport } from '../../metrics/health-check.js';
import type { WebConsoleDeps } from '../console-deps.js';
import { formatCount, formatTime } from '../format.js';
import { html, type Html } from '../html.js';
import { statusPill } from '../layout.js';
import { runsTable } from './runs-table.js';

/** What the Overview shows, read in parallel. */
export interface OverviewData {
  readonly health: HealthReport;
  readonly counts: ConsoleCounts;
  readonly active: readonly ConsoleRun[];
  readonly processes: readonly ClusterProcessInfo[];
  readonly gateway: string | null;
  readonly shared: boolean;
  readonly sandbox: SandboxState;
}

/** Runs shown on the Overview (the Runs page has them all). */
const ACTIVE_SHOWN = 10;

export async function overviewData(deps: WebConsoleDeps): Promise<OverviewData> {
  const { overview, queries } = deps;
  const [health, counts, active, processes, gateway, sandbox] = await Promise.all([
    overview.health(),
    queries.counts(),
    queries.activeRuns(ACTIVE_SHOWN),
    overview.cluster.processes(),
    overview.cluster.gatewayHolder(),
    Promise.resolve(overview.sandbox.state()),
  ]);
  return { health, counts, active, processes, gateway, shared: overview.cluster.shared, sandbox };
}

function card(n: number, label: string): Html {
  return html`<li class="card"><span class="n">${formatCount(n)}</span><span class="l">${label}</span></li>`;
}

function healthSection(h: HealthReport): Html {
  const platforms = Object.entries(h.platforms);
  return html`<section aria-labelledby="health"><h2 id="health">Health ${statusPill(h.status === 'ok' ? 'ok' : 'unhealthy', h.status === 'ok' ? 'healthy' : 'unhealthy')}</h2>
${h.problems.length > 0 ? html`<div class="problem"><ul>${h.problems.map((p) => html`<li>${p}</li>`)}</ul></div>` : ''}
<dl class="facts"><dt>Database</dt><dd>${h.database.writable ? 'accepts writes' : `not writable: ${h.database.detail ?? ''}`}</dd>
${platforms.map(([name, s]) => html`<dt>${name}</dt><dd>${s.connected ? 'connected' : 'not connected'}${s.detail ? html` <span class="muted">(${s.detail})</span>` : ''}</dd>`)}</dl></section>`;
}

function clusterSection(d: OverviewData): Html {
  return html`<section aria-labelledby="cluster"><h2 id="cluster">Processes</h2>
<p>${d.shared ? `${d.processes.length} Errand process${d.processes.length === 1 ? '' : 'es'} share the PostgreSQL database.` : 'One Errand process on its SQLite file.'}
Discord gateway: ${d.gateway ? html`held by <strong>${d.gateway}</strong>` : 'held by no process'}.</p>
<div class="wrap"><table><caption>Processes${d.shared ? ' (from their database connections)' : ''}</caption><thead><tr><th scope="col">Process</th><th scope="col">Up since</th><th scope="col">Holds</th></tr></thead><tbody>
${d.processes.map((p) => html`<tr><th scope="row">${p.id}${p.self ? html` <span class="muted">(serves this page)</span>` : ''}</th><td>${formatTime(p.since)}</td><td>${p.id === d.gateway ? 'the Discord gateway' : '—'}</td></tr>`)}
</tbody></table></div></section>`;
}

function sandboxLine(s: SandboxState): Html {
  if (!s.configured) return html`<p>Sandbox: <span class="muted">not configured</span>.</p>`;
  return html`<p>Sandbox: ${statusPill(s.healthy ? 'ok' : 'error', s.healthy ? 'ready' : 'not ready')} ${s.summary}</p>`;
}

function toolServers(h: HealthReport): Html {
  const servers = h.mcp ?? [];
  if (servers.length === 0) return html`<p class="muted">No MCP servers are configured.</p>`;
  return html`<div class="wrap"><table><caption>MCP servers, as this process sees them</caption><thead><tr><th scope="col">Server</th><th scope="col">State</th><th scope="col">Why</th></tr></thead><tbody>
${servers.map((s) => html`<tr><th scope="row">${s.name}</th><td>${statusPill(s.state === 'connected' || s.state === 'ready' ? 'ok' : s.state === 'failed' ? 'error' : 'waiting', s.state)}</td><td>${s.reason ?? '—'}</td></tr>`)}
</tbody></table></div>`;
}

/** The Overview: is it healthy, who runs what, how much is queued, and the state of the sandbox and tool servers. */
export function overviewBody(d: OverviewData): Html {
  const c = d.counts;
  return html`<ul class="cards" aria-label="At a glance">
${card(c.runsRunning, 'runs running now')}${card(c.runsWaiting, 'runs waiting for a person')}${card(c.tasksPending, 'to-dos queued')}${card(c.conversations, 'conversations')}${card(c.schedulesActive, 'active schedules')}${card(c.schedulesPaused, 'paused schedules')}
</ul>
<div class="two">${healthSection(d.health)}${clusterSection(d)}</div>
<section aria-labelledby="now"><h2 id="now">Runs now</h2>${runsTable(d.active, 'Runs running or waiting now', 'Nothing is running.')}
${c.runsRunning + c.runsWaiting > d.active.length ? html`<p><a href="/admin/runs">All ${formatCount(c.runsRunning + c.runsWaiting)} active runs</a></p>` : ''}</section>
<section aria-labelledby="tools"><h2 id="tools">Sandbox and tool servers</h2>${sandboxLine(d.sandbox)}${toolServers(d.health)}</section>`;
}
