import type { Clock } from '../../clock.js';
import type { RunFence } from '../../run-records/run-fence.js';
import type { AnswerRows, AnswerRowsWritten } from '../answer-rows.js';
import type { OutboxStore } from '../outbox-store.js';
import type { PgExecutor } from './pg-executor.js';
import { preparedText } from './pg-prepared.js';

/**
 * A model answer's write in one statement (issue 40): the run's step and tokens, the day's usage, the model's
 * usage of the day and the run's cost, the transcript row and the post's outbox rows, where a transaction of
 * `countStep`, the two usage statements, the transcript insert and the outbox insert took six round trips.
 *
 * The fence: the first CTE updates the run's row only while its owner and lease generation are the fence's.
 * An update takes the row lock `RunStore.holds` takes (`for no key update`) until the statement commits, and
 * under READ COMMITTED re-reads a row a takeover changed meanwhile before it matches, so it answers what `holds`
 * would. Every other CTE selects from it: when the fence does not hold, no row is written anywhere and the
 * statement returns no row. Nothing here reads what a lock holder committed (the caveat of bench/OVERHEAD.md's
 * fifth round): the other CTEs only insert, or add to a counter with `on conflict do update`, which sees the
 * committed row. A data-modifying CTE runs to completion whether or not the final select reads it.
 */
export const ANSWER_WRITE_CTES =
  `with run as (update runs set steps = steps + 1, tokens = tokens + $4::integer, updated_at = $5::bigint ` +
  `where id = $1::text and owner is not distinct from $2::text and lease_generation = $3::integer returning id, steps, tokens), ` +
  `daily as (insert into usage_daily (day, "user", prompt_tokens, completion_tokens) ` +
  `select $6::text, $7::text, $8::bigint, $9::bigint from run where $6::text is not null ` +
  `on conflict (day, "user") do update set prompt_tokens = usage_daily.prompt_tokens + excluded.prompt_tokens, ` +
  `completion_tokens = usage_daily.completion_tokens + excluded.completion_tokens), ` +
  `model_daily as (insert into usage_model_daily (day, "user", model, prompt_tokens, completion_tokens, cached_tokens, cost_usd) ` +
  `select $6::text, $7::text, $10::text, $8::bigint, $9::bigint, $11::bigint, $12::double precision from run where $6::text is not null ` +
  `on conflict (day, "user", model) do update set prompt_tokens = usage_model_daily.prompt_tokens + excluded.prompt_tokens, ` +
  `completion_tokens = usage_model_daily.completion_tokens + excluded.completion_tokens, ` +
  `cached_tokens = usage_model_daily.cached_tokens + excluded.cached_tokens, ` +
  `cost_usd = usage_model_daily.cost_usd + excluded.cost_usd), ` +
  `cost as (insert into run_costs (run_id, cost_usd) select run.id, $12::double precision from run where $6::text is not null ` +
  `on conflict (run_id) do update set cost_usd = run_costs.cost_usd + excluded.cost_usd returning cost_usd), ` +
  `message as (insert into messages (conversation_id, run_id, role, content, tool_calls, private_to, created_at) ` +
  `select $13::text, run.id, 'assistant', $14::text, $15::jsonb, $16::text, $5::bigint from run returning id)`;

/** The columns of the answer's write's result, after its CTEs (`posts` names the post's rows). */
export const ANSWER_WRITE_RESULT =
  `run.steps, run.tokens, (select cost_usd from cost) as usd, (select id from message) as message_id, ` +
  `array(select id from posts order by id) as post_ids`;

/** The answer's write's result row, as node-postgres hands it back. */
export interface AnswerWriteRow {
  readonly steps: number;
  readonly tokens: number;
  readonly usd: number | null;
  readonly message_id: string;
  readonly post_ids: string[];
}

/** The answer's write without the outbox's claim (`pg-answer-claim.ts` adds it), as sent. */
export const ANSWER_WRITE_SQL =
  `${ANSWER_WRITE_CTES}, ` +
  `posts as (insert into outbox (conversation_id, run_id, purpose, payload, status, created_at) ` +
  `select $13::text, run.id, $17::text, p.payload, 'pending', $5::bigint ` +
  `from run, unnest($18::jsonb[]) with ordinality as p(payload, n) order by p.n returning id) ` +
  `select ${ANSWER_WRITE_RESULT} from run`;

const writeAnswer = preparedText<AnswerWriteRow>(ANSWER_WRITE_SQL);

/** The answer's write's values `$1`–`$18`, in the order ANSWER_WRITE_CTES and the post's rows read them. */
export function answerWriteValues(answer: AnswerRows, fence: RunFence, now: number): unknown[] {
  const c = answer.charge;
  const usage = c?.usage;
  return [
    fence.runId,
    fence.owner,
    fence.generation,
    usage ? usage.promptTokens + usage.completionTokens : 0,
    now,
    c?.day ?? null,
    c?.user ?? null,
    usage?.promptTokens ?? 0,
    usage?.completionTokens ?? 0,
    c?.charge.model ?? null,
    c?.charge.cachedTokens ?? 0,
    c?.charge.usd ?? 0,
    answer.conversationId,
    answer.content,
    answer.toolCalls.length > 0 ? JSON.stringify(answer.toolCalls) : null,
    answer.privateTo,
    answer.purpose,
    answer.pieces.map((p) => JSON.stringify(p)),
  ];
}

/** What the answer's write returned, as the store's callers read it. */
export function answerWritten(row: AnswerWriteRow): AnswerRowsWritten {
  return {
    steps: row.steps,
    runTokens: row.tokens,
    runUsd: row.usd,
    messageId: Number(row.message_id),
    postIds: row.post_ids.map(Number),
  };
}

/** The answer's write of the outbox store on PostgreSQL (OutboxStore.addFencedAnswer). */
export function createPgAnswerWrite(db: PgExecutor, clock: Clock): Pick<Required<OutboxStore>, 'addFencedAnswer'> {
  return {
    async addFencedAnswer(answer: AnswerRows, fence: RunFence): Promise<AnswerRowsWritten | null> {
      const [row] = await writeAnswer(db, answerWriteValues(answer, fence, clock.now()));
      return row ? answerWritten(row) : null;
    },
  };
}
