import type { Logger } from 'pino';
import type { SignInNeeded } from '../../agent/tools/external-tool.js';
import type { ToolResult } from '../../agent/tools/tool.js';
import type { OAuthConnections } from './oauth-connections.js';

/*
 * Asking a person to sign in to an `auth: "oauth"` server: the private Connect notice and what the model reads
 * meanwhile. A sign-in link is single use and connects whoever opens it first, so it only ever goes where its
 * person alone reads it.
 */

/** How the person a run acts for is told, privately, to connect their account (the outbox's `recordEphemeral`). */
export type ConnectNotice = (conversationId: string, userId: string, text: string) => Promise<void>;

/** What the OAuth side hands the tool servers once it runs (app start): the tokens and the way to tell people. */
export interface OAuthBinding {
  readonly connections: OAuthConnections;
  readonly notify: ConnectNotice;
  /**
   * Whether a notice in this conversation reaches its person alone. A sign-in link is single use: whoever opens it
   * first connects THEIR account for the person it was made for, so it is never posted where others can read it.
   */
  readonly privateIn: (conversationId: string) => boolean;
}

/** What the model reads when its person cannot be sent a private sign-in link on this platform. */
export const cannotLinkHereError = (userId: string, server: string): string =>
  `${userId} has not connected ${server} yet, and this platform cannot show them a private sign-in link, so connecting is not possible from here yet. Tell them, and go on without ${server}.`;

/** What the model reads when its person has not connected: something it can act on, never a token. */
export const notConnectedError = (userId: string, server: string): string =>
  `${userId} has not connected ${server} yet; they were sent a link to connect. Ask them to connect and then try again.`;

/** What the model reads when the server asked a connected person to sign in again (more access, or a revoked token). */
export const signInAgainError = (userId: string, server: string): string =>
  `${server} asked ${userId} to sign in again (it needs more access, or their sign-in ended); they were sent a link. Ask them to sign in and then try again.`;

/** The private notice with the Connect link (the URL in the text: the outbox has no link buttons). */
export const connectNoticeText = (server: string, url: string, again = false): string =>
  again
    ? `To do this in **${server}** for you I need you to sign in again (it asks for more access). Connect ${server}: ${url}`
    : `To use **${server}** for you I need you to connect your account. Connect ${server}: ${url}`;

/**
 * Tells the person a run acts for to connect (or sign in again), privately, and returns what the model reads: a
 * refusal it can act on, with `signIn` so the run can wait for the callback. Where no private notice reaches the
 * person, no link is made at all.
 */
export async function askToConnect(
  binding: OAuthBinding,
  server: { server: string; logger: Logger },
  ask: { conversationId: string; userId: string; url: string; again: boolean },
): Promise<ToolResult | SignInNeeded> {
  const { conversationId, userId, url, again } = ask;
  const name = server.server;
  if (!binding.privateIn(conversationId)) {
    await binding
      .notify(
        conversationId,
        userId,
        `To use **${name}** for you I need you to connect your account, but a sign-in link cannot be shown to you privately here, so connecting is not possible from this platform yet.`,
      )
      .catch((err: unknown) =>
        server.logger.error(
          { err: err instanceof Error ? err.message : String(err) },
          'recording the Connect notice failed',
        ),
      );
    return { ok: false, error: cannotLinkHereError(userId, name) };
  }
  await binding
    .notify(conversationId, userId, connectNoticeText(name, url, again))
    .catch((err: unknown) =>
      server.logger.error(
        { err: err instanceof Error ? err.message : String(err) },
        'recording the Connect notice failed',
      ),
    );
  return {
    ok: false,
    error: again ? signInAgainError(userId, name) : notConnectedError(userId, name),
    signIn: { server: name },
  };
}
