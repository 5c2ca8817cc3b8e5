import * as webApi from '@slack/web-api';

/** Slack's answers to `auth.test` that mean the bot token itself is wrong. */
const TOKEN_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
  'no_permission',
]);

function unwrap(err: unknown): unknown {
  let e = err;
  while (e instanceof Error && !(e instanceof webApi.WebAPIPlatformError) && !isWebApiError(e) && e.cause !== undefined)
    e = e.cause;
  return e;
}

function isWebApiError(err: unknown): err is webApi.WebAPICallError {
  const code: unknown = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('slack_webapi_');
}

/** The system error code (ECONNREFUSED, ENOTFOUND, …) under fetch's generic "fetch failed", else its message. */
function networkDetail(err: webApi.WebAPIRequestError): string {
  let e: unknown = err.original;
  for (let depth = 0; e instanceof Error && depth < 5; depth++, e = e.cause) {
    const code: unknown = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return err.original instanceof Error ? err.original.message : err.message;
}

/**
 * Says why the start-up `auth.test` failed so the operator fixes the right thing: Slack not
 * reachable (network, DNS, refused, a wrong SLACK_API_URL) is told apart from a token Slack
 * rejected — blaming the token for a network problem sends people regenerating tokens.
 */
export function explainAuthFailure(err: unknown, apiUrl: string): string {
  const e = unwrap(err);
  if (e instanceof webApi.WebAPIPlatformError) {
    const code = e.data.error;
    if (TOKEN_ERRORS.has(code))
      return `Slack rejected the bot token (${code}); check SLACK_BOT_TOKEN (the xoxb- Bot User OAuth Token from the Slack app → OAuth & Permissions).`;
    return `Slack auth.test failed (${code}); check SLACK_BOT_TOKEN.`;
  }
  if (isWebApiError(e) && e.code === webApi.ErrorCode.RequestError) {
    return `Could not reach Slack at ${apiUrl} (${networkDetail(e as webApi.WebAPIRequestError)}); check the network or SLACK_API_URL.`;
  }
  if (isWebApiError(e) && e.code === webApi.ErrorCode.HTTPError) {
    const status = (e as webApi.WebAPIHTTPError).statusCode;
    if (status === 401 || status === 403)
      return `Slack at ${apiUrl} rejected the bot token (HTTP ${status}); check SLACK_BOT_TOKEN.`;
    return `Slack at ${apiUrl} answered HTTP ${status}, which is not the Slack Web API; check SLACK_API_URL.`;
  }
  const detail = err instanceof Error ? err.message : String(err);
  return `Slack auth.test failed (${detail}); check SLACK_API_URL and SLACK_BOT_TOKEN.`;
}
