import type { ChannelUsageCell, UsageCell } from '../../admin/console-queries.js';
import type { WebConsoleDeps } from '../console-deps.js';
import { formatCount, formatUsd } from '../format.js';
import { html, type Html } from '../html.js';
import { horizontalBarChart, stackedBarChart, type StackedSeries } from '../svg-charts.js';

const DAYS = [7, 30, 90] as const;

/** The UTC days from `from` to `to` (both `YYYY-MM-DD`), every one of them, so a quiet day shows as a gap. */
function daysBetween(fromMs: number, toMs: number): string[] {
  const out: string[] = [];
  for (let t = fromMs; t <= toMs; t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Cells summed per day, stacked by `key` (e.g. the model). */
function byDay<T extends { day: string; tokens: number; usd: number }>(
  cells: readonly T[],
  days: readonly string[],
  key: (c: T) => string,
  value: (c: T) => number,
): StackedSeries {
  const categories = [...new Set(cells.map(key))].sort();
  const dayAt = new Map(days.map((d, i) => [d, i]));
  const values = days.map(() => categories.map(() => 0));
  for (const c of cells) {
    const d = dayAt.get(c.day);
    const k = categories.indexOf(key(c));
    if (d !== undefined && k >= 0) values[d]![k]! += value(c);
  }
  return { days, categories, values };
}

function totals<T>(
  cells: readonly T[],
  key: (c: T) => string,
  value: (c: T) => number,
): { label: string; value: number }[] {
  const sums = new Map<string, number>();
  for (const c of cells) sums.set(key(c), (sums.get(key(c)) ?? 0) + value(c));
  return [...sums].map(([label, v]) => ({ label, value: v }));
}

/** Tokens and dollars per day (by model), per person, per channel and per model, as charts with their numbers beside. */
export async function usageBody(deps: WebConsoleDeps, query: URLSearchParams): Promise<Html> {
  const wanted = Number(query.get('days'));
  const span = (DAYS as readonly number[]).includes(wanted) ? wanted : 30;
  const now = deps.now();
  const fromMs = Date.parse(new Date(now - (span - 1) * 86_400_000).toISOString().slice(0, 10));
  const days = daysBetween(fromMs, now);
  const [cells, channels] = await Promise.all([deps.queries.usage(days[0]!), deps.queries.channelUsage(fromMs)]);
  const tokens = (c: UsageCell | ChannelUsageCell) => c.tokens;
  const usd = (c: UsageCell | ChannelUsageCell) => c.usd;
  const tokenCount = (n: number) => formatCount(n);
  const allTokens = cells.reduce((a, c) => a + c.tokens, 0);
  const allUsd = cells.reduce((a, c) => a + c.usd, 0);
  return html`<nav class="pager" aria-label="Time span">
      ${DAYS.map((d) => (d === span ? html`<strong aria-current="page">Last ${d} days</strong>` : html`<a href="/admin/usage?days=${d}">Last ${d} days</a>`))}
    </nav>
    <p>
      ${formatCount(allTokens)} tokens and ${formatUsd(allUsd)} over the last ${span} days (UTC days; dollars where
      <code>pricing</code> names the model).
    </p>
    ${stackedBarChart(
      'Tokens per day, by model',
      byDay(cells, days, (c) => c.model, tokens),
      tokenCount,
    )}
    ${stackedBarChart(
      'Dollars per day, by model',
      byDay(cells, days, (c) => c.model, usd),
      formatUsd,
    )}
    <div class="two">
      ${horizontalBarChart(
        'Tokens per person',
        totals(cells, (c) => c.user, tokens),
        tokenCount,
      )}
      ${horizontalBarChart(
        'Dollars per person',
        totals(cells, (c) => c.user, usd),
        formatUsd,
      )}
      ${horizontalBarChart(
        'Tokens per channel',
        totals(channels, (c) => c.channel, tokens),
        tokenCount,
      )}
      ${horizontalBarChart(
        'Dollars per channel',
        totals(channels, (c) => c.channel, usd),
        formatUsd,
      )}
      ${horizontalBarChart(
        'Tokens per model',
        totals(cells, (c) => c.model, tokens),
        tokenCount,
      )}
      ${horizontalBarChart(
        'Dollars per model',
        totals(cells, (c) => c.model, usd),
        formatUsd,
      )}
    </div>
    <p class="muted">
      Per channel counts the runs started there (their tokens and cost); the other charts count every request charged to
      a person, summaries included.
    </p>`;
}
