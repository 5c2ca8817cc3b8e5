import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * A person's sign-in to one MCP server with `auth: "oauth"` (DESIGN.md "Signing in to MCP servers"). The
 * token set is sealed with ERRAND_SECRET_KEY (src/secrets/secret-box.ts): the row alone reveals no token.
 * `version` grows with every token write, and `refresh_holder`/`refresh_until` is the claim of the one process
 * spending the refresh token right now, so two processes never both spend a rotating refresh token.
 */
export const mcpConnections = sqliteTable(
  'mcp_connections',
  {
    /** Whose account: `platform:user id`, the run's principal. */
    principal: text('principal').notNull(),
    server: text('server').notNull(),
    /** The SDK's OAuthTokens as JSON (access, refresh, issuer…), sealed. */
    tokens: text('tokens').notNull(),
    /** Scopes granted (the token response's `scope`, else those asked for). */
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    /** The account's name on that service, when the authorization server tells it. */
    account: text('account'),
    /** When the access token stops working (epoch ms); null: the server gave no lifetime. */
    expiresAt: integer('expires_at'),
    version: integer('version').notNull().default(0),
    refreshHolder: text('refresh_holder'),
    refreshUntil: integer('refresh_until'),
    /** Since when the person is connected (the first sign-in; a refresh keeps it). */
    connectedAt: integer('connected_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.principal, t.server] })],
);

/** How Errand is registered with each OAuth server's authorization server (dynamic registration or CIMD), shared by everyone. */
export const mcpOauthClients = sqliteTable('mcp_oauth_clients', {
  server: text('server').primaryKey(),
  /** The SDK's OAuthClientInformation as JSON (client id, secret when one was issued, issuer), sealed. */
  client: text('client').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * A sign-in under way: the `state` sent to the authorization server, bound to the person, the run waiting on
 * it and the server; the PKCE verifier sealed. Single use (`used_at`), valid until `expires_at` (10 minutes).
 */
export const mcpOauthPending = sqliteTable(
  'mcp_oauth_pending',
  {
    state: text('state').primaryKey(),
    principal: text('principal').notNull(),
    server: text('server').notNull(),
    runId: text('run_id'),
    codeVerifier: text('code_verifier').notNull(),
    /** The scopes asked for, recorded on the connection when the server's answer names none. */
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('mcp_oauth_pending_expires_idx').on(t.expiresAt)],
);

export type McpConnectionRow = typeof mcpConnections.$inferSelect;
export type McpOauthClientRow = typeof mcpOauthClients.$inferSelect;
export type McpOauthPendingRow = typeof mcpOauthPending.$inferSelect;
