import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CONSOLE_CSS } from './console-style.js';

/** The tab's icon: an "E" on the header's colour. */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#24292f"/><path d="M10 8h12v3h-8.5v3.5H21v3h-7.5V21H22v3H10z" fill="#fff"/></svg>';

/** A file the console serves to every visitor (nothing secret: scripts and the stylesheet). */
export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const require = createRequire(import.meta.url);
const fromPackage = (specifier: string) => readFileSync(require.resolve(specifier));

/**
 * The console's static files, read once: htmx and its server-sent-events extension from node_modules as their
 * packages publish them (no build step), and the stylesheet. Loaded when the console starts, never at import.
 */
export function loadConsoleAssets(): ReadonlyMap<string, Asset> {
  const js = 'text/javascript; charset=utf-8';
  return new Map<string, Asset>([
    ['/admin/assets/htmx.min.js', { type: js, body: fromPackage('htmx.org/dist/htmx.min.js') }],
    ['/admin/assets/sse.js', { type: js, body: fromPackage('htmx-ext-sse/dist/sse.min.js') }],
    ['/admin/assets/console.css', { type: 'text/css; charset=utf-8', body: Buffer.from(CONSOLE_CSS) }],
    ['/admin/assets/icon.svg', { type: 'image/svg+xml', body: Buffer.from(ICON) }],
  ]);
}
