import type { IncomingMessage, ServerResponse } from 'node:http';
import { csrfMatches, csrfTokenOf } from '../admin/admin-tokens.js';
import { checkChain } from '../audit/audit-chain.js';
import type { Asset } from './console-assets.js';
import {
  changeSchedule,
  editSchedule,
  forgetMemory,
  revokeConnection,
  sendCsrfRefusal,
  stopRun,
  type ActionInput,
} from './console-actions.js';
import type { WebConsoleDeps } from './console-deps.js';
import { readForm, SECURITY_HEADERS, sendHtml, sendJson } from './console-http.js';
import { streamLive } from './console-live.js';
import { handleSignIn, handleSignOut, sendSignedOut } from './console-sign-in.js';
import { html, type Html } from './html.js';
import { page, plainPage } from './layout.js';
import { auditBody, auditCheckBody } from './pages/audit-page.js';
import { connectionsBody } from './pages/connections-page.js';
import { memoriesBody } from './pages/memories-page.js';
import { overviewBody, overviewData } from './pages/overview-page.js';
import { runBody, runFragment, runView } from './pages/run-page.js';
import { runsBody, runsFragment } from './pages/runs-page.js';
import { scheduleEditBody, schedulesBody } from './pages/schedules-page.js';
import { todosBody } from './pages/todos-page.js';
import { usageBody } from './pages/usage-page.js';
import { sessionSecretOf } from './session-cookie.js';
import { whenOf } from '../schedules/schedule-when.js';

/** Audit entries the chain check reads per query. */
const CHECK_PAGE = 1000;

/** A path segment as the browser encoded it; null when it is not valid percent-encoding. */
function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

const notFound = (res: ServerResponse) =>
  sendHtml(
    res,
    404,
    plainPage(
      'Not found',
      html`<p>There is no such page in the Errand console. <a href="/admin">Go to the Overview</a>.</p>`,
    ),
  );

/**
 * The console's routes under /admin. Static assets and the sign-in link need no session; every other address
 * needs a session whose person is still an admin (checked on each request, streams included), and every change
 * is a POST whose form carries the session's CSRF token.
 */
export function createConsoleRouter(
  deps: WebConsoleDeps,
  assets: ReadonlyMap<string, Asset>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const asset = assets.get(path);
    if (asset) {
      res
        .writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type, 'cache-control': 'public, max-age=3600' })
        .end(req.method === 'HEAD' ? undefined : asset.body);
      return;
    }
    const signIn = /^\/admin\/sign-in\/([A-Za-z0-9_-]{20,100})$/.exec(path);
    if (signIn) return handleSignIn(req, res, deps, signIn[1]!);
    const secret = sessionSecretOf(req, deps.secure);
    const user = secret ? await deps.signIn.user(secret) : null;
    if (!secret || !user) return sendSignedOut(res, deps.secure);
    const csrf = csrfTokenOf(secret);
    const view = (title: string, body: Html, live = false) =>
      sendHtml(res, 200, page(path, title, { name: user.key, csrf }, body, { live }));
    const notice = url.searchParams.get('notice')?.slice(0, 400) ?? null;

    if (req.method === 'POST') {
      const form = await readForm(req);
      if (!form || !csrfMatches(secret, form.get('csrf') ?? '')) return sendCsrfRefusal(res);
      const a: ActionInput = { user, csrf, form, res };
      if (path === '/admin/sign-out') return handleSignOut(req, res, deps, user.key);
      const stop = /^\/admin\/runs\/([^/]+)\/stop$/.exec(path);
      const stopId = stop ? decoded(stop[1]!) : null;
      if (stopId !== null) return stopRun(deps, a, stopId);
      const schedule = /^\/admin\/schedules\/(\d+)\/(pause|resume|delete|edit)$/.exec(path);
      if (schedule)
        return schedule[2] === 'edit'
          ? editSchedule(deps, a, Number(schedule[1]))
          : changeSchedule(deps, a, Number(schedule[1]), schedule[2] as 'pause' | 'resume' | 'delete');
      if (path === '/admin/connections/revoke') return revokeConnection(deps, a);
      const forget = /^\/admin\/memories\/(\d+)\/forget$/.exec(path);
      if (forget) return forgetMemory(deps, a, Number(forget[1]));
      return notFound(res);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...SECURITY_HEADERS, allow: 'GET, POST' }).end();
      return;
    }
    const stillSignedIn = async () => (await deps.signIn.user(secret)) !== null;
    switch (path) {
      case '/admin':
        return view('Overview', overviewBody(await overviewData(deps)));
      case '/admin/runs':
        return view('Runs', await runsBody(deps, url.searchParams), true);
      case '/admin/runs/events':
        return streamLive(req, res, deps, {
          key: 'runs',
          poll: () => deps.queries.runsFingerprint(),
          event: 'runs',
          render: async () => (await runsFragment(deps, null)).body,
          stillSignedIn,
        });
      case '/admin/schedules':
        return view('Schedules', await schedulesBody(deps, url.searchParams, csrf, notice));
      case '/admin/todos':
        return view('To-dos', await todosBody(deps, url.searchParams));
      case '/admin/usage':
        return view('Usage', await usageBody(deps, url.searchParams));
      case '/admin/connections':
        return view('Connections', await connectionsBody(deps, csrf, notice));
      case '/admin/memories':
        return view('Memories', await memoriesBody(deps, csrf, notice));
      case '/admin/audit':
        return view('Audit log', await auditBody(deps, url.searchParams));
      case '/admin/audit/check':
        return view(
          'Audit chain check',
          auditCheckBody(await checkChain((after) => deps.auditStore.after(after, CHECK_PAGE))),
        );
      case '/admin/audit/check.json':
        return sendJson(res, 200, await checkChain((after) => deps.auditStore.after(after, CHECK_PAGE)));
    }
    const run = /^\/admin\/runs\/([^/]+?)(\/events)?$/.exec(path);
    if (run) {
      const id = decoded(run[1]!);
      const v = id === null ? null : await runView(deps, id);
      if (!v || id === null) return notFound(res);
      if (run[2]) {
        const poll = () => deps.queries.runFingerprint(v.run.conversationId, id);
        return streamLive(req, res, deps, {
          key: `run:${id}`,
          poll,
          event: 'run',
          render: async () => {
            const fresh = await runView(deps, id);
            return fresh ? runFragment(fresh) : html``;
          },
          stillSignedIn,
        });
      }
      return view(
        v.run.title ? `Run: ${v.run.title}` : `Run ${id.slice(0, 8)}`,
        html`${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}${runBody(v, csrf)}`,
        true,
      );
    }
    const edit = /^\/admin\/schedules\/(\d+)\/edit$/.exec(path);
    if (edit) {
      const row = await deps.schedules.find(Number(edit[1]));
      if (!row) return notFound(res);
      return view(
        `Edit schedule #${row.id}`,
        scheduleEditBody(row, { prompt: row.prompt, when: whenOf(row), timezone: row.timezone, errors: {} }, csrf),
      );
    }
    return notFound(res);
  };
}
