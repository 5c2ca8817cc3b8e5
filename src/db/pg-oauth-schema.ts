import { index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { epochMs } from './pg-columns.js';

/** A person's sign-in to one OAuth MCP server: the token set sealed, a version and a refresh claim for refreshing once cluster-wide. */
export const mcpConnections = pgTable(
  'mcp_connections',
  {
    principal: text('principal').notNull(),
    server: text('server').notNull(),
    tokens: text('tokens').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    account: text('account'),
    expiresAt: epochMs('expires_at'),
    version: integer('version').notNull().default(0),
    refreshHolder: text('refresh_holder'),
    refreshUntil: epochMs('refresh_until'),
    connectedAt: epochMs('connected_at').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.principal, t.server] })],
);

/** How Errand is registered with each OAuth server's authorization server, sealed. */
export const mcpOauthClients = pgTable('mcp_oauth_clients', {
  server: text('server').primaryKey(),
  client: text('client').notNull(),
  createdAt: epochMs('created_at').notNull(),
  updatedAt: epochMs('updated_at').notNull(),
});

/** A sign-in under way: state → person, run, server, sealed PKCE verifier; single use, 10 minutes. */
export const mcpOauthPending = pgTable(
  'mcp_oauth_pending',
  {
    state: text('state').primaryKey(),
    principal: text('principal').notNull(),
    server: text('server').notNull(),
    runId: text('run_id'),
    codeVerifier: text('code_verifier').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    expiresAt: epochMs('expires_at').notNull(),
    usedAt: epochMs('used_at'),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [index('mcp_oauth_pending_expires_idx').on(t.expiresAt)],
);
