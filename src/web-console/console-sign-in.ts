import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebConsoleDeps } from './console-deps.js';
import { redirect, sendHtml } from './console-http.js';
import { html } from './html.js';
import { plainPage } from './layout.js';
import { clearedCookie, sessionCookie, sessionSecretOf } from './session-cookie.js';

const ASK_AGAIN = 'Type /admin again in Slack, Discord or the console for a fresh link.';

const REFUSED = {
  expired: { status: 400, title: 'This link has expired', text: `Sign-in links work for 10 minutes. ${ASK_AGAIN}` },
  used: { status: 400, title: 'This link was already used', text: `Each sign-in link works once. ${ASK_AGAIN}` },
  unknown: {
    status: 400,
    title: 'This link is not valid',
    text: `Errand does not know this link: it may be incomplete. ${ASK_AGAIN}`,
  },
  not_admin: {
    status: 403,
    title: 'You are not an admin any more',
    text: 'Only the admins listed in access.admins may use the web console.',
  },
} as const;

/**
 * `GET /admin/sign-in/<secret>` shows a button and spends nothing (a link preview or a scanner opening the link
 * does not use it up); `POST` to the same address spends the link, opens the session and sets its cookie. The
 * page carries no secret: the form posts back to the address the browser already has.
 */
export async function handleSignIn(
  req: IncomingMessage,
  res: ServerResponse,
  deps: WebConsoleDeps,
  secret: string,
): Promise<void> {
  if (req.method === 'GET' || req.method === 'HEAD') {
    sendHtml(
      res,
      200,
      plainPage(
        'Sign in to the Errand console',
        html`<p>This link signs you in to Errand's web console in this browser, for 12 hours. It works once.</p>
          <form method="post"><button type="submit" class="primary">Sign in</button></form>`,
      ),
    );
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'GET, POST' }).end();
    return;
  }
  const redeemed = await deps.signIn.redeem(secret);
  if (redeemed.kind !== 'signed_in') {
    const r = REFUSED[redeemed.kind];
    sendHtml(res, r.status, plainPage(r.title, html`<p>${r.text}</p>`));
    return;
  }
  await deps.audit.record('sign_in', redeemed.user.key, null, { action: 'signed in to the web console' });
  redirect(res, '/admin', { 'set-cookie': sessionCookie(redeemed.sessionSecret, deps.secure) });
}

/** Ends the session (the caller checked its CSRF token) and clears the cookie. */
export async function handleSignOut(
  req: IncomingMessage,
  res: ServerResponse,
  deps: WebConsoleDeps,
  userKey: string,
): Promise<void> {
  const secret = sessionSecretOf(req, deps.secure);
  if (secret) await deps.signIn.signOut(secret);
  await deps.audit.record('sign_in', userKey, null, { action: 'signed out of the web console' });
  sendHtml(
    res,
    200,
    plainPage('Signed out', html`<p>You are signed out of the Errand console. Type /admin for a new link.</p>`),
    { 'set-cookie': clearedCookie(deps.secure) },
  );
}

/** Any console address without a valid session. */
export function sendSignedOut(res: ServerResponse, secure: boolean): void {
  sendHtml(
    res,
    401,
    plainPage(
      'Sign in with /admin',
      html`<p>You are not signed in, or your session ended (after 12 hours, or because you are no longer an admin).</p>
        <p>
          An admin types <code>/admin</code> in Slack, Discord or the console and opens the private link it gives.
        </p>`,
    ),
    {
      'set-cookie': clearedCookie(secure),
    },
  );
}
