import { html, type Html } from './html.js';

/** The console's pages in the order of the navigation bar. */
export const NAV: readonly { readonly path: string; readonly label: string }[] = [
  { path: '/admin', label: 'Overview' },
  { path: '/admin/runs', label: 'Runs' },
  { path: '/admin/schedules', label: 'Schedules' },
  { path: '/admin/todos', label: 'To-dos' },
  { path: '/admin/usage', label: 'Usage' },
  { path: '/admin/connections', label: 'Connections' },
  { path: '/admin/memories', label: 'Memories' },
  { path: '/admin/audit', label: 'Audit' },
];

/** Who is signed in, and the token every form of theirs carries. */
export interface PageUser {
  readonly name: string;
  readonly csrf: string;
}

/** htmx reads this: no eval, no script tags from swapped content, no inline styles (the CSP allows none). */
const HTMX_CONFIG =
  '{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true}';

function head(title: string): Html {
  return html`<meta charset="utf-8" /><meta name="viewport" content="width=device-width,initial-scale=1" /><title>
      ${title} · Errand console
    </title>
    <meta name="htmx-config" content="${HTMX_CONFIG}" /><link rel="stylesheet" href="/admin/assets/console.css" /><link
      rel="icon"
      href="/admin/assets/icon.svg"
      type="image/svg+xml"
    />`;
}

/** The section of NAV a path belongs to (a run's page is under Runs). */
function sectionOf(path: string): string {
  const hit = NAV.filter((n) => n !== NAV[0] && (path === n.path || path.startsWith(`${n.path}/`)));
  return hit[0]?.path ?? '/admin';
}

/**
 * A signed-in page: skip link, navigation with the current page marked, the person and Sign out, then `body` under
 * one h1 in `main`. Scripts load deferred and only make live parts live: every page reads the same without them.
 */
export function page(path: string, title: string, user: PageUser, body: Html, options: { live?: boolean } = {}): Html {
  const current = sectionOf(path);
  const scripts = options.live
    ? html`<script src="/admin/assets/htmx.min.js" defer></script>
        <script src="/admin/assets/sse.js" defer></script>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        ${head(title)}${scripts}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <span class="brand">Errand console</span>
          <nav aria-label="Console sections">
            <ul>
              ${NAV.map((n) => html`<li><a href="${n.path}" ${n.path === current ? html` aria-current="page"` : ''}>${n.label}</a></li>`)}
            </ul>
          </nav>
          <div class="who">
            <span>Signed in as <strong>${user.name}</strong></span>
            <form method="post" action="/admin/sign-out" class="inline">
              <input type="hidden" name="csrf" value="${user.csrf}" /><button type="submit">Sign out</button>
            </form>
          </div>
        </header>
        <main id="main">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html> `;
}

/** A page for someone not signed in (sign-in, refusals): no navigation, a short text. */
export function plainPage(title: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        ${head(title)}
      </head>
      <body>
        <main id="main" class="center">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html> `;
}

/** A status pill whose class colours it (see console-style.ts). */
export function statusPill(status: string, label: string = status.replace('_', ' ')): Html {
  return html`<span class="status s-${status}">${label}</span>`;
}
