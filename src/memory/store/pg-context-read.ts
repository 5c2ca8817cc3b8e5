import { z } from 'zod';
import type { ImagePart, StoredToolCall } from '../../db/schema.js';
import type { PgExecutor } from '../../store/postgres/pg-executor.js';
import { preparedText } from '../../store/postgres/pg-prepared.js';
import type { MemoryStore, MemoryVisibility, StoredContext, StoredContextRead } from '../memory-store.js';
import { searchTerms, tsQuery } from '../search-terms.js';

/*
 * A run's request context in ONE statement on PostgreSQL (issue 40): the conversation's summary, the viewer's own
 * summary, the transcript's newest rows, the memories matched by full text and the newest ones (and at a run's
 * start the conversation's row and the skill pins), each a scalar subquery that returns its rows as `json`. It
 * replaces five to seven statements, each a round trip that cost Errand ≈ 185 µs and the server ≈ 120 µs. A
 * read-only statement sees one snapshot: at least as consistent as the separate reads it replaces.
 *
 * Each subquery selects exactly what its own store's read selects (same `where`, `order by`, `limit`), with the
 * columns named as drizzle names them in the row types; `zod` reads the JSON back into those row types. Bigint
 * columns arrive as JSON numbers (as drizzle's `mode: 'number'`), jsonb columns as the JSON they hold.
 */

/** Which scopes a visibility reads (as pg-memory-store.ts's shapes, with no scope filter). */
interface Shape {
  readonly me: boolean;
  readonly workspace: boolean;
}

/** The statement text of one visibility shape, and the order of its parameters. */
function statementOf(shape: Shape): { text: string; names: readonly string[] } {
  const names: string[] = [];
  const p = (name: string, type: string) => {
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}::${type}`;
  };
  const conv = p('conversationId', 'text');
  const visible = [
    ...(shape.me ? [`(scope = 'me' and subject = ${p('person', 'text')})`] : []),
    `(scope = 'channel' and subject = ${p('channel', 'text')})`,
    ...(shape.workspace ? [`(scope = 'workspace' and subject = ${p('workspace', 'text')})`] : []),
  ].join(' or ');
  const query = `to_tsquery('english', ${p('query', 'text')})`;
  const memory = (m: string) =>
    `json_build_object('id', ${m}.id, 'scope', ${m}.scope, 'subject', ${m}.subject, 'text', ${m}.text, 'createdBy', ${m}.created_by, 'createdAt', ${m}.created_at)`;
  const text = `select
  (select row_to_json(c) from (select id, platform, workspace, channel, thread, timezone, created_at as "createdAt", updated_at as "updatedAt"
    from conversations where ${p('withConversation', 'boolean')} and id = ${conv}) c) as conversation,
  (select coalesce(json_agg(s order by s.name), '[]'::json) from (select name, pin, enabled_by as "enabledBy", enabled_at as "enabledAt"
    from skill_pins where ${p('withPins', 'boolean')}) s) as pins,
  (select row_to_json(s) from (select conversation_id as "conversationId", summary, through_message_id as "throughMessageId", version, updated_at as "updatedAt"
    from conversation_summaries where conversation_id = ${conv}) s) as summary,
  (select row_to_json(s) from (select conversation_id as "conversationId", owner, summary, through_message_id as "throughMessageId", version, updated_at as "updatedAt"
    from private_summaries where conversation_id = ${conv} and owner = ${p('owner', 'text')}) s) as private_summary,
  (select coalesce(json_agg(m order by m.id), '[]'::json) from (select id, conversation_id as "conversationId", run_id as "runId", role, content,
      tool_calls as "toolCalls", tool_call_id as "toolCallId", author_id as "authorId", platform_message_id as "platformMessageId", images,
      created_at as "createdAt", private_to as "privateTo"
    from messages where conversation_id = ${conv} order by id desc limit ${p('historyRows', 'integer')}) m) as transcript,
  (select coalesce(json_agg(${memory('m')} order by m.rank desc, m.id desc), '[]'::json) from (select id, scope, subject, text, created_by, created_at, ts_rank(search, ${query}) as rank
    from memories where ${p('withMemories', 'boolean')} and (${visible}) and search @@ ${query}
    order by rank desc, id desc limit ${p('matched', 'integer')}) m) as matched,
  (select coalesce(json_agg(${memory('m')} order by m.id desc), '[]'::json) from (select id, scope, subject, text, created_by, created_at
    from memories where ${p('withMemories', 'boolean')} and (${visible})
    order by id desc limit ${p('newest', 'integer')}) m) as newest`;
  return { text, names };
}

/** One prepared statement per shape (four: with or without `me`, with or without `workspace`). */
const SHAPES = new Map(
  [false, true].flatMap((me) =>
    [false, true].map((workspace) => {
      const { text, names } = statementOf({ me, workspace });
      return [`${me}${workspace}`, { run: preparedText<unknown>(text), names }] as const;
    }),
  ),
);

const epoch = z.number().int();
/** A jsonb column, as node-postgres and drizzle hand it back: whatever JSON it holds (the agent checks its shape). */
const jsonColumn = <T>() => z.json().transform((v) => v as unknown as T);

const conversationRow = z.object({
  id: z.string(),
  platform: z.string(),
  workspace: z.string(),
  channel: z.string(),
  thread: z.string().nullable(),
  timezone: z.string().nullable(),
  createdAt: epoch,
  updatedAt: epoch,
});
const skillPinRow = z.object({ name: z.string(), pin: z.string(), enabledBy: z.string(), enabledAt: epoch });
const summaryFields = { summary: z.string(), throughMessageId: epoch, version: z.number().int(), updatedAt: epoch };
const summaryRow = z.object({ conversationId: z.string(), ...summaryFields });
const privateSummaryRow = z.object({ conversationId: z.string(), owner: z.string(), ...summaryFields });
const messageRow = z.object({
  id: epoch,
  conversationId: z.string(),
  runId: z.string().nullable(),
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable(),
  toolCalls: jsonColumn<StoredToolCall[] | null>(),
  toolCallId: z.string().nullable(),
  authorId: z.string().nullable(),
  platformMessageId: z.string().nullable(),
  images: jsonColumn<ImagePart[] | null>(),
  createdAt: epoch,
  privateTo: z.string().nullable(),
});
const memoryRow = z.object({
  id: z.number().int(),
  scope: z.enum(['me', 'channel', 'workspace']),
  subject: z.string(),
  text: z.string(),
  createdBy: z.string(),
  createdAt: epoch,
});
const contextRow = z.object({
  conversation: conversationRow.nullable(),
  pins: z.array(skillPinRow),
  summary: summaryRow.nullable(),
  private_summary: privateSummaryRow.nullable(),
  transcript: z.array(messageRow),
  matched: z.array(memoryRow),
  newest: z.array(memoryRow),
});

/** A visibility's placeholders; a run with no memories to read takes the narrowest shape, which reads none. */
const NO_MEMORIES: MemoryVisibility = { person: null, channel: '', workspace: null };

/** `MemoryStore.readContext` on PostgreSQL: one statement, read back into the row types of the separate reads. */
export function pgReadContext(db: PgExecutor): NonNullable<MemoryStore['readContext']> {
  return async (read: StoredContextRead): Promise<StoredContext> => {
    const memories = read.memories;
    const visibility = memories?.visibility ?? NO_MEMORIES;
    const terms = memories ? searchTerms(memories.query) : [];
    const shape = SHAPES.get(`${visibility.person !== null}${visibility.workspace !== null}`)!;
    const values: Record<string, unknown> = {
      conversationId: read.conversationId,
      withConversation: read.conversation,
      withPins: read.pins,
      owner: read.owner,
      historyRows: read.historyRows,
      withMemories: memories !== null,
      person: visibility.person,
      channel: visibility.channel,
      workspace: visibility.workspace,
      // `search` reads nothing for a goal without a word: neither does this (a null query matches no row).
      query: terms.length > 0 ? tsQuery(terms) : null,
      matched: memories?.matched ?? 0,
      newest: memories?.newest ?? 0,
    };
    const [raw] = await shape.run(
      db,
      shape.names.map((n) => values[n]),
    );
    const row = contextRow.parse(raw);
    return {
      summary: row.summary,
      privateSummary: read.owner === null ? null : row.private_summary,
      window: row.transcript,
      matched: row.matched,
      newest: row.newest,
      ...(read.conversation ? { conversation: row.conversation } : {}),
      ...(read.pins ? { pins: row.pins } : {}),
    };
  };
}
