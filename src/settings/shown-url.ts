import { expandString, type ExpandedPiece } from './expand-env.js';

/** What stands in for a hidden path segment. */
const HIDDEN = '•••';

/**
 * Parts shorter than this are not scrubbed out of free text: they are no secret worth the name, and
 * replacing them everywhere would garble ordinary words of an error message.
 */
const MIN_SCRUBBED_LENGTH = 4;

/**
 * A server URL as it may be shown — in logs, `/healthz` and the model's error results — and what of the real
 * one must never be. A URL often carries its key (`…/mcp?api_key=…`, `…/s/<key>/mcp`, `https://user:pass@…`).
 */
export interface ShownUrl {
  /** `scheme://host[:port]/path` without query, fragment or userinfo; each path segment a `${VAR}` filled in is `•••`. */
  readonly text: string;
  /** Each text to take out of free text, with what replaces it; longest first, so a whole URL goes before its parts. */
  readonly replacements: readonly (readonly [secret: string, shownAs: string])[];
}

function encodings(s: string): string[] {
  const forms = [s, encodeURIComponent(s), encodeURI(s)];
  try {
    forms.push(decodeURIComponent(s));
  } catch {
    // not percent-encoded: nothing to decode
  }
  return forms;
}

/** Where the parts of an absolute URL begin and end, as indices into the string as written. */
function partsOf(value: string): { authorityStart: number; authorityEnd: number; pathEnd: number } {
  const after = (from: number, stops: RegExp) => {
    const i = value.slice(from).search(stops);
    return i === -1 ? value.length : from + i;
  };
  const authorityStart = value.indexOf('//') + 2;
  const authorityEnd = after(authorityStart, /[/?#]/);
  return { authorityStart, authorityEnd, pathEnd: after(authorityEnd, /[?#]/) };
}

function fromPieces(pieces: readonly ExpandedPiece[]): ShownUrl {
  const value = pieces.map((p) => p.text).join('');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { text: '(an invalid URL)', replacements: [[value, '(an invalid URL)']] };
  }
  // Positions in `value` as written: `new URL` normalises (case, escapes, dot segments), which would lose
  // track of which characters a variable gave.
  const fromVariable: boolean[] = pieces.flatMap((p) => Array.from(p.text, () => p.variable !== null));
  const { authorityStart, authorityEnd, pathEnd } = partsOf(value);
  const hidden: string[] = [];
  /** Hides value[from, to) and, apart, each stretch of it a variable gave (the key inside "key-${KEY}"). */
  const hide = (from: number, to: number) => {
    hidden.push(value.slice(from, to));
    let run = '';
    for (let i = from; i <= to; i++) {
      if (i < to && fromVariable[i]) run += value[i];
      else if (run) {
        hidden.push(run);
        run = '';
      }
    }
  };

  const shownSegments: string[] = [];
  let segmentStart = authorityEnd;
  for (const segment of value.slice(authorityEnd, pathEnd).split('/')) {
    const end = segmentStart + segment.length;
    const secret = fromVariable.slice(segmentStart, end).some(Boolean);
    shownSegments.push(secret ? HIDDEN : segment);
    if (secret) hide(segmentStart, end);
    segmentStart = end + 1;
  }
  const at = value.lastIndexOf('@', authorityEnd);
  if (at >= authorityStart) {
    hide(authorityStart, at);
    hidden.push(url.password);
  }
  if (pathEnd < value.length) {
    hide(pathEnd + 1, value.length);
    hidden.push(url.search.slice(1), url.hash.slice(1), ...[...url.searchParams].map(([, v]) => v));
  }

  const text = `${url.protocol}//${url.host}${shownSegments.join('/')}`;
  const parts = new Map<string, string>();
  for (const secret of hidden.flatMap(encodings)) if (secret.length >= MIN_SCRUBBED_LENGTH) parts.set(secret, HIDDEN);
  const partsFirst = { text, replacements: [...parts].sort(([a], [b]) => b.length - a.length) };
  // The whole URL, in the forms an error message quotes it, becomes the shown form — when it holds a secret.
  const wholes = [...new Set([value, url.href, `${url.origin}${url.pathname}`])].filter(
    (real) => real !== text && scrubUrl(real, partsFirst) !== real,
  );
  const replacements = [...wholes.map((real) => [real, text] as const), ...partsFirst.replacements];
  return { text, replacements: replacements.sort(([a], [b]) => b.length - a.length) };
}

/**
 * The shown form of a server URL from its template in the configuration file: which path segments to hide
 * depends on which characters `${VAR}`s gave, which the expanded string no longer tells.
 */
export function shownUrlFromTemplate(template: string, env: NodeJS.ProcessEnv): ShownUrl {
  return fromPieces(expandString(template, env).pieces);
}

/** The shown form of a URL written out in full (no `${VAR}`): query, fragment and userinfo still go. */
export function shownLiteralUrl(url: string): ShownUrl {
  return fromPieces([{ text: url, variable: null }]);
}

/**
 * Takes the real URL and its secret parts out of free text (an SDK's or fetch's error message, a server's
 * error body): the URL becomes its shown form, a secret part `•••`.
 */
export function scrubUrl(text: string, url: ShownUrl): string {
  let out = text;
  for (const [secret, shownAs] of url.replacements) out = out.split(secret).join(shownAs);
  return out;
}
