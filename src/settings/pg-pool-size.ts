/**
 * How many PostgreSQL connections a process keeps by default (`DATABASE_POOL_SIZE`). A mention sends about ten
 * statements of well under a millisecond each, so even a process at its CPU's limit keeps a fraction of one
 * connection busy on average, and four leave room for bursts and for a statement waiting on a row lock. More are
 * not free: every connection is a server process of its own, and spreading the same statements over ten of them
 * cost the server 0.1–0.35 ms more a mention than over four in every run of `npm run bench -- pg-overhead`
 * (issue 40, tenth round).
 * Kept in a module of its own so the configuration can name it without loading the driver.
 */
export const DEFAULT_PG_POOL_SIZE = 4;
