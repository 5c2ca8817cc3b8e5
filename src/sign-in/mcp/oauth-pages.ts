import type { CallbackOutcome } from './authorization-callback.js';

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A small page in plain words: the browser tab is all the person sees of this step. */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#222}h1{font-size:1.4rem}</style>
</head><body><h1>${escape(title)}</h1><p>${escape(body)}</p></body></html>
`;
}

/** The person a sign-in was for, in words: `slack:U123` → "the Slack user U123". */
function personNamed(principal: string): string {
  const at = principal.indexOf(':');
  const platform = principal.slice(0, at);
  const name = platform === '' ? 'the person' : `the ${platform.charAt(0).toUpperCase()}${platform.slice(1)} user`;
  return `${name} ${principal.slice(at + 1)}`;
}

/**
 * The HTTP status and page for each way a sign-in can end (no token, code or state ever appears in it). A connection
 * says whose it became and for which server: a link forwarded to (or opened by) someone else attaches THEIR account
 * to the person the link was made for, and the page is where they can see it.
 */
export function callbackPage(outcome: CallbackOutcome): { status: number; html: string } {
  switch (outcome.kind) {
    case 'connected':
      return {
        status: 200,
        html: page(
          'Connected — you can close this tab',
          `The ${outcome.server} account you signed in with is now connected to Errand for ${personNamed(outcome.principal)}: Errand acts with it in ${outcome.server} when it works for them. If that is not you (someone forwarded you their link), tell them to disconnect it with /connections disconnect ${outcome.server}.`,
        ),
      };
    case 'denied':
      return {
        status: 200,
        html: page(
          'Not connected',
          `You declined access to ${outcome.server}, so nothing was connected. You can close this tab; ask Errand again if you change your mind.`,
        ),
      };
    case 'expired':
      return {
        status: 400,
        html: page(
          'This link has expired',
          `Connect links work for 10 minutes. Nothing was connected to ${outcome.server}. Ask Errand again in the chat for a fresh link.`,
        ),
      };
    case 'used':
      return {
        status: 400,
        html: page(
          'This link was already used',
          `Each Connect link works once. Nothing more was connected to ${outcome.server}. If you are not connected yet, ask Errand again in the chat for a fresh link.`,
        ),
      };
    case 'failed':
      return {
        status: 502,
        html: page(
          'Connecting failed',
          `The sign-in service of ${outcome.server} reported an error, so nothing was connected. Try again in a moment from the chat; if it keeps failing, tell the operator.`,
        ),
      };
    case 'unknown':
      return {
        status: 400,
        html: page(
          'This link is not valid',
          'Errand does not know this sign-in: the link may be incomplete or not from Errand. Nothing was connected. Ask Errand again in the chat for a fresh link.',
        ),
      };
  }
}

/** The page for any other path on the web port. */
export const notFoundPage = page('Not found', 'This address serves Errand’s sign-in pages only.');
