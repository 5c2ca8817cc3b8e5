/** One sample line of the Prometheus text exposition format. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  /** Declared `# TYPE` of each metric family. */
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
  /** The value of the sample with exactly these labels (0 labels: the unlabelled one); undefined when absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, readonly string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count', ''],
  counter: ['', '_total'],
  gauge: [''],
  untyped: [''],
};

/** Values are read like Go's strconv.ParseFloat, as Prometheus does: NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string, line: string): number {
  const special = text.toLowerCase();
  if (special === 'nan') return NaN;
  if (/^\+?inf(inity)?$/.test(special)) return Infinity;
  if (/^-inf(inity)?$/.test(special)) return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value "${text}" in: ${line}`);
  return Number(text);
}

/** Reads `{a="x",b="y"}` starting at `i` (the `{`); returns the labels and the index after `}`. */
function parseLabels(line: string, i: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let pos = i + 1;
  while (line[pos] !== '}') {
    const eq = line.indexOf('=', pos);
    if (eq < 0) throw new Error(`label without "=" in: ${line}`);
    const name = line.slice(pos, eq).trim();
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name "${name}" in: ${line}`);
    if (line[eq + 1] !== '"') throw new Error(`unquoted label value in: ${line}`);
    let value = '';
    let p = eq + 2;
    for (; ; p++) {
      const c = line[p];
      if (c === undefined) throw new Error(`unterminated label value in: ${line}`);
      if (c === '"') break;
      if (c === '\\') {
        const next = line[++p];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`bad escape "\\${next ?? ''}" in: ${line}`);
      } else value += c;
    }
    if (name in labels) throw new Error(`duplicate label "${name}" in: ${line}`);
    labels[name] = value;
    pos = p + 1;
    if (line[pos] === ',') pos++;
    else if (line[pos] !== '}') throw new Error(`expected "," or "}" after a label in: ${line}`);
  }
  return { labels, end: pos + 1 };
}

/**
 * A strict reader of the text exposition format (version 0.0.4): every sample belongs to a family
 * declared by `# TYPE` before it, names and labels are well formed, values are numbers, a family
 * is not declared twice, and histograms are consistent (cumulative buckets, `+Inf` = `_count`).
 */
export function parseExposition(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) continue;
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`bad metric name in: ${line}`);
      if (kind === 'TYPE') {
        if (types.has(name)) throw new Error(`TYPE declared twice for ${name}`);
        if (!TYPES.has(rest)) throw new Error(`unknown type in: ${line}`);
        types.set(name, rest);
      } else {
        if (helped.has(name)) throw new Error(`HELP declared twice for ${name}`);
        helped.add(name);
      }
      continue;
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
    if (!nameMatch) throw new Error(`bad sample line: ${line}`);
    const name = nameMatch[0];
    let pos = name.length;
    let labels: Record<string, string> = {};
    if (line[pos] === '{') ({ labels, end: pos } = parseLabels(line, pos));
    if (line[pos] !== ' ') throw new Error(`expected a space before the value in: ${line}`);
    const [valueText, timestamp, extra] = line.slice(pos + 1).split(' ');
    if (valueText === undefined || extra !== undefined || (timestamp !== undefined && !/^-?\d+$/.test(timestamp)))
      throw new Error(`bad value part in: ${line}`);
    const family = [...types.keys()].find((f) => (SUFFIXES[types.get(f)!] ?? ['']).some((s) => name === f + s));
    if (!family) throw new Error(`sample ${name} has no TYPE declared before it`);
    samples.push({ name, labels, value: parseValue(valueText, line) });
  }
  const key = (labels: Record<string, string>) =>
    JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
  for (const [family, type] of types) {
    if (type !== 'histogram') continue;
    const series = new Map<string, Sample[]>();
    for (const s of samples.filter((x) => x.name === `${family}_bucket`)) {
      const { le, ...rest } = s.labels;
      if (le === undefined) throw new Error(`${family}_bucket without le`);
      series.set(key(rest), [...(series.get(key(rest)) ?? []), s]);
    }
    for (const [labels, buckets] of series) {
      const values = buckets.map((b) => b.value);
      if (values.some((v, i) => i > 0 && v < values[i - 1]!)) throw new Error(`${family} buckets are not cumulative`);
      const inf = buckets.find((b) => b.labels.le === '+Inf');
      const count = samples.find((s) => s.name === `${family}_count` && key(s.labels) === labels);
      if (!inf || !count || inf.value !== count.value) throw new Error(`${family}: the +Inf bucket must equal _count`);
    }
  }
  return {
    types,
    samples,
    value(name, labels = {}) {
      return samples.find((s) => s.name === name && key(s.labels) === key(labels))?.value;
    },
  };
}
