import { z } from 'zod';
import type { ConsoleRun } from '../admin/console-queries.js';
import { RUN_STATUSES } from '../db/schema.js';

/*
 * The rows of the web console's read queries as both databases return them from raw SQL: PostgreSQL hands back
 * bigint columns and counts as strings, SQLite booleans as 0/1, so every number is coerced here once.
 */

const num = z.coerce.number();
const numOrNull = z.union([z.null(), z.coerce.number()]);

export const consoleRunRow = z.object({
  id: z.string(),
  conversationId: z.string(),
  taskId: numOrNull,
  title: z.string().nullable(),
  status: z.enum(RUN_STATUSES),
  steps: num,
  tokens: num,
  usd: num,
  principal: z.string().nullable(),
  owner: z.string().nullable(),
  leaseUntil: numOrNull,
  startedAt: num,
  updatedAt: num,
  endedAt: numOrNull,
  error: z.string().nullable(),
  summary: z.string().nullable(),
  waitingOn: z.string().nullable(),
}) satisfies z.ZodType<ConsoleRun>;

export const consoleRunRows = z.array(consoleRunRow);

export const countsRow = z.object({
  conversations: num,
  runsRunning: num,
  runsWaiting: num,
  tasksPending: num,
  schedulesActive: num,
  schedulesPaused: num,
});

export const usageRows = z.array(
  z.object({ day: z.string(), user: z.string(), model: z.string(), tokens: num, usd: num }),
);
export const channelUsageRows = z.array(z.object({ day: z.string(), channel: z.string(), tokens: num, usd: num }));
export const todoRows = z.array(z.object({ conversationId: z.string(), open: num, total: num, latest: num }));
export const fingerprintRows = z.array(z.object({ id: z.string(), status: z.string(), steps: num, updatedAt: num }));
export const auditRows = z.array(
  z.object({
    id: num,
    at: num,
    kind: z.string(),
    actor: z.string().nullable(),
    runId: z.string().nullable(),
    entry: z.string(),
    prevHash: z.string(),
    hash: z.string(),
  }),
);

/** The fingerprint text of a list of active runs plus the newest end (see ConsoleQueries.runsFingerprint). */
export function fingerprintOf(rows: z.infer<typeof fingerprintRows>, lastEnd: number | null): string {
  return `${rows.map((r) => `${r.id}:${r.status}:${r.steps}:${r.updatedAt}`).join(',')}|${lastEnd ?? 0}`;
}
