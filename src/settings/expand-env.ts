/** A `${VAR}` reference that could not be resolved, with where it was found. */
export interface MissingVariable {
  readonly path: readonly (string | number)[];
  readonly name: string;
}

/** A run of an expanded string: written in the file (`variable: null`) or given by `${variable}`. */
export interface ExpandedPiece {
  readonly text: string;
  readonly variable: string | null;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands the `${VAR}` (and `${VAR:-fallback}`) references of one string, keeping apart what the file says
 * and what each variable gave, so a caller can tell which parts of the result are secrets from the
 * environment. An unresolved reference stays as written and its name is listed in `missing`.
 */
export function expandString(template: string, env: NodeJS.ProcessEnv): { pieces: ExpandedPiece[]; missing: string[] } {
  const pieces: ExpandedPiece[] = [];
  const missing: string[] = [];
  let last = 0;
  for (const match of template.matchAll(REFERENCE)) {
    const [whole, name, fallback] = match as unknown as [string, string, string | undefined];
    if (match.index > last) pieces.push({ text: template.slice(last, match.index), variable: null });
    const found = env[name];
    if (found !== undefined && found !== '') pieces.push({ text: found, variable: name });
    else if (fallback !== undefined) pieces.push({ text: fallback, variable: name });
    else {
      missing.push(name);
      pieces.push({ text: whole, variable: name });
    }
    last = match.index + whole.length;
  }
  if (last < template.length) pieces.push({ text: template.slice(last), variable: null });
  return { pieces, missing };
}

/**
 * Replaces `${VAR}` (and `${VAR:-fallback}`) in every string of a parsed JSON value, so secrets stay in
 * the environment and the file can be committed. Missing variables are collected, not thrown, so one
 * start-up reports every problem at once.
 */
export function expandEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  path: (string | number)[] = [],
  missing: MissingVariable[] = [],
): { value: unknown; missing: MissingVariable[] } {
  const walk = (v: unknown, at: (string | number)[]): unknown => {
    if (typeof v === 'string') {
      const expanded = expandString(v, env);
      for (const name of expanded.missing) missing.push({ path: at, name });
      return expanded.pieces.map((p) => p.text).join('');
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...at, i]));
    if (v !== null && typeof v === 'object') {
      // `$comment` and `$schema` are notes for people, never settings: leave them as written.
      return Object.fromEntries(
        Object.entries(v).map(([k, item]) => [k, k.startsWith('$') ? item : walk(item, [...at, k])]),
      );
    }
    return v;
  };
  return { value: walk(value, path), missing };
}
