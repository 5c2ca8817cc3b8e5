/** More words than this in a query add little to the ranking and cost time in the index. */
const MAX_TERMS = 32;

/** English words nearly every memory shares: they match everything and tell nothing (PostgreSQL's `english` drops them too). */
const STOP_WORDS = new Set(
  'a an and are as at be but by can could did do does for from had has have he her his how i if in is it its me my no not of on or our please she so than that the their them then there they this to was we were what when where which who why will with would you your'.split(
    ' ',
  ),
);

/**
 * The distinct words of a free-text query (letters and digits only, lower case, common English function
 * words left out unless nothing else is left), so no character of it can be read as full-text syntax by FTS5
 * or `to_tsquery`. Both stores match any of them (OR).
 */
export function searchTerms(query: string): string[] {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const telling = words.filter((w) => !STOP_WORDS.has(w));
  return (telling.length > 0 ? telling : words).slice(0, MAX_TERMS);
}

/** The FTS5 `owner` token of one scope's subject: the hex of `scope:subject`, as the index's triggers write it. */
export function ownerToken(scope: string, subject: string): string {
  return Buffer.from(`${scope}:${subject}`, 'utf8').toString('hex').toUpperCase();
}

/**
 * An FTS5 MATCH expression for memories of any of `owners` that contain any of the terms (each one quoted),
 * so the index intersects the asker's own memories with the words before anything is ranked.
 */
export function fts5Query(owners: readonly string[], terms: readonly string[]): string {
  return `owner : (${owners.map((o) => `"${o}"`).join(' OR ')}) AND text : (${terms.map((t) => `"${t}"`).join(' OR ')})`;
}

/** A `to_tsquery` expression that matches any of the terms. */
export function tsQuery(terms: readonly string[]): string {
  return terms.join(' | ');
}

/** Whether a word of a memory counts as a query term: the same word, or one a prefix of the other (stems: "review", "reviews"). */
function matches(word: string, term: string): boolean {
  if (word === term) return true;
  const [short, long] = word.length < term.length ? [word, term] : [term, word];
  return short.length >= 4 && long.startsWith(short);
}

/**
 * Orders memories found by the full-text index, best first: each query term a memory contains counts by how
 * rare it is among them (a word most of them share, like "the", counts little), newest first on a tie.
 * The index has already narrowed them to the asker's matching memories, so this ranks a few hundred at most.
 */
export function rankByTerms<T extends { readonly id: number; readonly text: string }>(
  rows: readonly T[],
  terms: readonly string[],
): T[] {
  const words = rows.map((r) => r.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const has = words.map((ws) => terms.map((t) => ws.some((w) => matches(w, t))));
  const weights = terms.map((_, k) => {
    const df = has.filter((h) => h[k]).length;
    return df === 0 ? 0 : Math.log(1 + rows.length / df);
  });
  const scored = rows.map((row, i) => ({
    row,
    score: has[i]!.reduce((sum, hit, k) => (hit ? sum + weights[k]! : sum), 0),
  }));
  scored.sort((a, b) => b.score - a.score || b.row.id - a.row.id);
  return scored.map((s) => s.row);
}
