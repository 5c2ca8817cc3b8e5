/** A `${VAR}` reference that could not be resolved, with where it was found. */
export interface MissingVariable {
  readonly path: readonly (string | number)[];
  readonly name: string;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${VAR}` (and `${VAR:-fallback}`) in every string of a parsed JSON value, so secrets stay in
 * the environment and the file can be committed. Missing variables are collected, not thrown, so one
 * start-up reports every problem at once.
 */
export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, path: (string | number)[] = [], missing: MissingVariable[] = []): { value: unknown; missing: MissingVariable[] } {
  const walk = (v: unknown, at: (string | number)[]): unknown => {
    if (typeof v === 'string') {
      return v.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
        const found = env[name];
        if (found !== undefined && found !== '') return found;
        if (fallback !== undefined) return fallback;
        missing.push({ path: at, name });
        return whole;
      });
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...at, i]));
    if (v !== null && typeof v === 'object') {
      // `$comment` and `$schema` are notes for people, never settings: leave them as written.
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, k.startsWith('$') ? item : walk(item, [...at, k])]));
    }
    return v;
  };
  return { value: walk(value, path), missing };
}
