import { html, type Html } from './html.js';

/**
 * Charts drawn on the server as SVG: no library, no script, readable without JavaScript. Each chart is an image
 * with a title and a description for screen readers, and the numbers it draws follow in a table under a
 * disclosure, so nothing is only in the picture.
 */

/** Okabe–Ito: told apart with the common colour-vision deficiencies. */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#8C6D1F', '#000000'];

/** One stack of bars over days: `values[category]` per day. */
export interface StackedSeries {
  readonly days: readonly string[];
  readonly categories: readonly string[];
  /** values[dayIndex][categoryIndex] */
  readonly values: readonly (readonly number[])[];
}

let chartIds = 0;
const nextId = () => `chart-${++chartIds}`;

/** A round upper bound for an axis (1, 2 or 5 times a power of ten). */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

function legend(categories: readonly string[]): Html {
  return html`<ul class="legend" aria-hidden="true">
    ${categories.map(
      (c, i) =>
        html`<li>
          <svg width="12" height="12" class="swatch-svg">
            <rect width="12" height="12" rx="2" fill="${PALETTE[i % PALETTE.length]}" />
          </svg>
          ${c}
        </li>`,
    )}
  </ul>`;
}

/** Days along the bottom, a bar per day stacked by category (e.g. model), with a labelled value axis. */
export function stackedBarChart(title: string, series: StackedSeries, format: (n: number) => string): Html {
  const id = nextId();
  const width = 760;
  const height = 240;
  const left = 64;
  const bottom = 36;
  const top = 12;
  const plotH = height - bottom - top;
  const plotW = width - left - 12;
  const totals = series.values.map((v) => v.reduce((a, b) => a + b, 0));
  const max = niceMax(Math.max(0, ...totals));
  const slot = series.days.length > 0 ? plotW / series.days.length : plotW;
  const barW = Math.max(2, Math.min(36, slot * 0.7));
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
  const labelEvery = Math.max(1, Math.ceil(series.days.length / 10));
  const bars = series.days.map((day, d) => {
    let base = 0;
    const x = left + d * slot + (slot - barW) / 2;
    const parts = (series.values[d] ?? []).map((v, c) => {
      if (v <= 0) return '';
      const y0 = y(base);
      base += v;
      return html`<rect
        x="${x.toFixed(1)}"
        y="${y(base).toFixed(1)}"
        width="${barW.toFixed(1)}"
        height="${(y0 - y(base)).toFixed(1)}"
        fill="${PALETTE[c % PALETTE.length]}"
        ><title>${day} · ${series.categories[c]}: ${format(v)}</title></rect
      >`;
    });
    const label =
      d % labelEvery === 0
        ? html`<text x="${(x + barW / 2).toFixed(1)}" y="${height - bottom + 16}" text-anchor="middle"
            >${day.slice(5)}</text
          >`
        : '';
    return html`${parts}${label}`;
  });
  const total = totals.reduce((a, b) => a + b, 0);
  return html`<figure>
    <figcaption id="${id}-t">${title}</figcaption>
    <svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-t ${id}-d">
      <desc id="${id}-d">
        ${title}: ${format(total)} over ${series.days.length} days, highest ${format(Math.max(0, ...totals))} in a day.
        The numbers are in the table below.
      </desc>
      ${ticks.map((t) => html`<line class="grid" x1="${left}" x2="${width - 12}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" /><text x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${format(t)}</text>`)}
      <line class="axis" x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" />
      <line class="axis" x1="${left}" x2="${width - 12}" y1="${top + plotH}" y2="${top + plotH}" />
      ${bars}
    </svg>
    ${legend(series.categories)}
    <details>
      <summary>${title}: the numbers</summary>
      <div class="wrap">
        <table>
          <caption>
            ${title}, per day
          </caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              ${series.categories.map((c) => html`<th scope="col" class="num">${c}</th>`)}
              <th scope="col" class="num">Total</th>
            </tr>
          </thead>
          <tbody>
            ${series.days.map(
              (day, d) =>
                html`<tr>
                  <th scope="row">${day}</th>
                  ${series.categories.map((_, c) => html`<td class="num">${format(series.values[d]?.[c] ?? 0)}</td>`)}
                  <td class="num">${format(totals[d] ?? 0)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>
  </figure>`;
}

/** One bar per label, longest first (at most `limit`), the value written beside each bar. */
export function horizontalBarChart(
  title: string,
  items: readonly { readonly label: string; readonly value: number }[],
  format: (n: number) => string,
  limit = 10,
): Html {
  const id = nextId();
  const shown = [...items].sort((a, b) => b.value - a.value).slice(0, limit);
  const width = 520;
  const row = 26;
  const labelW = 190;
  const height = Math.max(1, shown.length) * row + 8;
  const max = Math.max(0, ...shown.map((i) => i.value)) || 1;
  const barSpace = width - labelW - 90;
  const cut = (s: string) => (s.length > 28 ? `${s.slice(0, 27)}…` : s);
  return html`<figure>
    <figcaption id="${id}-t">${title}</figcaption>
    <svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-t ${id}-d">
      <desc id="${id}-d">
        ${title}: ${shown.map((i) => `${i.label} ${format(i.value)}`).join('; ') || 'nothing yet'}.
      </desc>
      ${shown.map((item, n) => {
        const w = Math.max(1, (item.value / max) * barSpace);
        const yy = 4 + n * row;
        return html`<text x="${labelW - 8}" y="${yy + 16}" text-anchor="end">${cut(item.label)}</text
          ><rect x="${labelW}" y="${yy + 4}" width="${w.toFixed(1)}" height="16" rx="2" fill="${PALETTE[0]}"
            ><title>${item.label}: ${format(item.value)}</title></rect
          ><text x="${(labelW + w + 6).toFixed(1)}" y="${yy + 16}">${format(item.value)}</text>`;
      })}
      ${shown.length === 0 ? html`<text x="12" y="20">Nothing yet.</text>` : ''}
    </svg>
    <details>
      <summary>${title}: the numbers</summary>
      <table>
        <caption>
          ${title}
        </caption>
        <thead>
          <tr>
            <th scope="col">Who or what</th>
            <th scope="col" class="num">Amount</th>
          </tr>
        </thead>
        <tbody>
          ${shown.map(
            (i) =>
              html`<tr>
                <th scope="row">${i.label}</th>
                <td class="num">${format(i.value)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </details>
  </figure>`;
}
