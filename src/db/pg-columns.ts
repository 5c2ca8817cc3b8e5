import { bigint, customType } from 'drizzle-orm/pg-core';

/*
 * The column kinds every PostgreSQL table of Errand uses, written once so that the schema files cannot drift
 * apart (each is the PostgreSQL twin of a SQLite column, see pg-schema.ts).
 */

/** Epoch milliseconds, read as a JS number (safe up to year 285 616): int4 would end in 1970 + 24 days. */
export const epochMs = (name: string) => bigint(name, { mode: 'number' });

/**
 * Conversation keys compare byte by byte (`COLLATE "C"`), as in SQLite: a channel's conversations are the key
 * range [`…channel:`, `…channel;`), which a locale collation (en_US ignores punctuation) would scramble.
 */
export const conversationKey = customType<{ data: string; driverData: string }>({ dataType: () => 'text collate "C"' });

/** Raw bytes (`bytea`), read and written as a Buffer by node-postgres. */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });
