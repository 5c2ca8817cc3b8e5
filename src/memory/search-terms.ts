/** More words than this in a query add little to the ranking and cost time in the index. */
const MAX_TERMS = 32;

/**
 * The distinct words of a free-text query (letters and digits only, lower case), so no character of it
 * can be read as full-text syntax by FTS5 or `to_tsquery`. Both stores match any of them (OR).
 */
export function searchTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, MAX_TERMS);
}

/** An FTS5 MATCH expression that matches any of the terms: each one quoted. */
export function fts5Query(terms: readonly string[]): string {
  return terms.map((t) => `"${t}"`).join(' OR ');
}

/** A `to_tsquery` expression that matches any of the terms. */
export function tsQuery(terms: readonly string[]): string {
  return terms.join(' | ');
}
