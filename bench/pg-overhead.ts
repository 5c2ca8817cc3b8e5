import pg from 'pg';
import { startTestPostgres } from '../tests/support/postgres-server.js';
import type { Benchmark, BenchFigure } from './benchmark.js';
import { answerAfter, answerMentions, createDatabase, SLOTS, startCluster, type Cluster } from './errand-cluster.js';
import { postmasterPid, serverCpuMs } from './pg-server-cpu.js';
import { parseExposition } from '../tests/e2e/prometheus-text.js';
import { freePort } from '../tests/support/free-port.js';
import { median } from './overhead-figures.js';
import { procCpuMs } from './proc-cpu.js';
import { SET_PREVIEW_MESSAGE_SQL } from '../src/store/postgres/pg-outbox-previews.js';

/**
 * What a mention costs on PostgreSQL against SQLite (issue 40): one Errand process on each store, both alive
 * at once, answering the scale-out benchmark's traffic (model 200 ms, MAX_CONCURRENT_RUNS 8, twice the slots
 * of mentions waiting, each in a channel of its own) in alternating blocks, so the machine's load falls on
 * both alike. CPU is read from /proc: Errand's process, and on PostgreSQL the whole server (postmaster and
 * every backend). Statements, transactions and notifications are counted by `pg_stat_statements` (loaded
 * into the benchmark's own server), diffed around each PostgreSQL block: exact, whatever the load.
 * `BENCH_PG_STATEMENTS=1` prints every statement with its calls per mention on stderr.
 */

const WARMUP = Number(process.env.BENCH_PG_WARMUP ?? 100);
const BLOCK = Number(process.env.BENCH_PG_BLOCK ?? 100);
/** Blocks per process: by default 4, or 6 with a baseline (the two orders of the rotation below, three times each). */
const BLOCKS = Number(process.env.BENCH_PG_BLOCKS ?? (process.env.BENCH_PG_BASELINE ? 6 : 4));
const MODEL_LATENCY_MS = 200;
const OUTSTANDING = 2 * SLOTS;
const IDLE_MS = 5_000;

type Counts = Map<string, number>;

/** Calls per normalised statement of this database, leaving out the benchmark's own reads. */
async function statementCounts(admin: pg.Client): Promise<Counts> {
  const { rows } = await admin.query<{ query: string; calls: string }>(
    `select query, sum(calls)::text as calls from pg_stat_statements s join pg_database d on d.oid = s.dbid
      where d.datname = current_database() and query not like '%pg_stat%' and s.toplevel group by query`,
  );
  return new Map(rows.map((r) => [r.query, Number(r.calls)]));
}

/**
 * `BENCH_PG_EXEC_TIME=1`: the server's own time for each statement (pg_stat_statements' mean execution and
 * planning time, over the whole run, warm-up included), largest total first, on stderr: where PostgreSQL's
 * CPU per mention goes, statement by statement. The planning time is a mean over all calls; `plans` says how many
 * of them were planned (a prepared statement's first five calls on each pooled connection, then once more whenever
 * an ANALYZE or VACUUM of a table it reads invalidates its kept plan): a mean of 30 µs is not a plan at every call. `BENCH_PG_EXEC_TIME=nested` also tracks the statements run inside
 * functions (pg_stat_statements.track=all; marked `in fn`), so a PL/pgSQL call's time can be split by its statements.
 */
async function printExecTimes(admin: pg.Client, label: string): Promise<void> {
  const { rows } = await admin.query<{
    query: string;
    calls: string;
    exec: number;
    plan: number;
    plans: string;
    total: number;
    toplevel: boolean;
  }>(
    `select query, toplevel, sum(calls)::text as calls, sum(plans)::text as plans, coalesce(sum(total_exec_time) / nullif(sum(calls), 0), 0) * 1000 as exec,
            coalesce(sum(total_plan_time) / nullif(sum(calls), 0), 0) * 1000 as plan, sum(total_exec_time + total_plan_time) as total
       from pg_stat_statements s join pg_database d on d.oid = s.dbid
      where d.datname = current_database() and query not like '%pg_stat%' group by query, toplevel order by total desc`,
  );
  process.stderr.write(
    `# server time per statement (µs: execution + planning, mean over the run's calls; calls planned), ${label}\n`,
  );
  for (const r of rows.slice(0, 40))
    process.stderr.write(
      `${r.exec.toFixed(0).padStart(6)} + ${r.plan.toFixed(0).padStart(4)} µs × ${r.calls.padStart(6)} (plans ${r.plans.padStart(5)})${r.toplevel ? '' : ' in fn'}\t${r.query.replace(/\s+/g, ' ').slice(0, 160)}\n`,
    );
}

/** Transactions ended and sessions (connections) opened on this database so far. */
async function databaseStats(admin: pg.Client): Promise<{ transactions: number; sessions: number }> {
  const { rows } = await admin.query<{ n: string; s: string }>(
    `select (xact_commit + xact_rollback)::text as n, sessions::text as s from pg_stat_database where datname = current_database()`,
  );
  return { transactions: Number(rows[0]!.n), sessions: Number(rows[0]!.s) };
}

function diff(after: Counts, before: Counts, into: Counts): void {
  for (const [q, n] of after) {
    const d = n - (before.get(q) ?? 0);
    if (d > 0) into.set(q, (into.get(q) ?? 0) + d);
  }
}

interface Side {
  readonly cluster: Cluster;
  readonly pid: number;
  next: number;
  mentions: number;
  cpuMs: number;
  seconds: number;
  /** CPU ms a mention in each block, in order (with the server's on PostgreSQL): the spread of the ratio. */
  readonly perBlock: number[];
}

async function block(side: Side, count: number): Promise<{ cpu: number }> {
  const before = procCpuMs(side.pid) ?? 0;
  side.seconds += await answerMentions(side.cluster, side.next, count, OUTSTANDING);
  const cpu = (procCpuMs(side.pid) ?? 0) - before;
  side.next += count;
  side.mentions += count;
  side.cpuMs += cpu;
  side.perBlock.push(cpu / count);
  return { cpu };
}

/** Statement kinds summed over `counts`, per mention: transactions, savepoints, notifications, the rest. */
function breakdown(counts: Counts, mentions: number) {
  let total = 0;
  const kinds = { begin: 0, commit: 0, savepoint: 0, notify: 0, forUpdate: 0, fence: 0, deferred: 0 };
  for (const [q, n] of counts) {
    total += n;
    const s = q.trim().toLowerCase();
    if (s === 'begin') kinds.begin += n;
    else if (s === 'commit') kinds.commit += n;
    else if (s.startsWith('savepoint') || s.startsWith('release savepoint') || s.startsWith('rollback to savepoint'))
      kinds.savepoint += n;
    if (s.includes('pg_notify') || s.startsWith('notify')) kinds.notify += n;
    if (s.includes(' for update') || s.includes(' for no key update')) kinds.forUpdate += n;
    if (FENCE_CHECK.test(s)) kinds.fence += n;
    // A preview's message id waits for the process's next statement and goes out ahead of it, or alone after 20 ms
    // (src/db/pg-deferred-writes.ts): counted among the round trips, which it is only when alone.
    if (s === SET_PREVIEW_MESSAGE_SQL) kinds.deferred += n;
  }
  const per = (n: number) => n / mentions;
  return {
    statements: per(total),
    begin: per(kinds.begin),
    savepoint: per(kinds.savepoint),
    notify: per(kinds.notify),
    forUpdate: per(kinds.forUpdate),
    fence: per(kinds.fence),
    deferred: per(kinds.deferred),
  };
}

/**
 * The fence check of a run write (`RunStore.holds`): a `for no key update` read of the run's row by id, owner
 * and generation. Since issue 40's third round it is sent behind its transaction's `begin` and before the
 * write's first statement without waiting for either answer, as `begin` is: neither is a round trip of its own.
 */
const FENCE_CHECK =
  /^select "id" from "runs" where \("runs"\."id" = \$1 and "runs"\."owner" (= \$2|is null) and "runs"\."lease_generation" = \$\d\) for no key update$/;
/** Whether the baseline build sends `begin` and the fence check pipelined too (a build of main before this round does not). */
const BASELINE_PIPELINED = process.env.BENCH_PG_BASELINE_PIPELINED === '1';

/** One PostgreSQL side: its Errand process, its own database (so its statements are counted apart) and what it used. */
interface PgSide extends Side {
  readonly label: string;
  readonly admin: pg.Client;
  readonly counts: Counts;
  transactions: number;
  sessions: number;
  serverMs: number;
  /** With BENCH_PG_POOL_WAITS: where the process serves /metrics, and its pool's waits over the blocks. */
  readonly metricsPort: number | null;
  poolWaits: number;
  poolWaitedS: number;
}

/**
 * `BENCH_PG_POOL_WAITS=1`: every side (SQLite's too, so all carry prom-client alike) serves /metrics, and each
 * PostgreSQL side's pool waits are read around its blocks (`errand_db_pool_waits_total`,
 * `errand_db_pool_wait_seconds_total`) and printed as `pg_pool_waits_per_mention`.
 */
const POOL_WAITS = process.env.BENCH_PG_POOL_WAITS === '1';

/** The pool's two totals from a process's /metrics (NaN where the build serves none). */
async function poolTotals(port: number): Promise<{ waits: number; seconds: number }> {
  const e = parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
  return {
    waits: e.value('errand_db_pool_waits_total') ?? NaN,
    seconds: e.value('errand_db_pool_wait_seconds_total') ?? NaN,
  };
}

/** The environment that makes a side serve /metrics (BENCH_PG_POOL_WAITS), on a port of its own. */
async function metricsEnv(): Promise<{ port: number | null; env: Record<string, string> }> {
  if (!POOL_WAITS) return { port: null, env: {} };
  const port = await freePort();
  return { port, env: { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' } };
}

/** A connection to `url` for the benchmark's own reads; a connection PostgreSQL ends would otherwise end the benchmark unexplained. */
async function adminClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', (err) =>
    process.stderr.write(`pg-overhead: the benchmark's own connection failed: ${String(err)}\n`),
  );
  await client.connect();
  return client;
}

/** One block on a PostgreSQL side, with the server's CPU and the database's statements and transactions around it. */
async function pgBlock(side: PgSide, postmaster: number, count: number): Promise<void> {
  const before = await statementCounts(side.admin);
  const statsBefore = await databaseStats(side.admin);
  const poolBefore = side.metricsPort === null ? null : await poolTotals(side.metricsPort);
  const serverBefore = serverCpuMs(postmaster);
  await block(side, count);
  const server = serverCpuMs(postmaster) - serverBefore;
  if (poolBefore !== null) {
    const poolAfter = await poolTotals(side.metricsPort!);
    side.poolWaits += poolAfter.waits - poolBefore.waits;
    side.poolWaitedS += poolAfter.seconds - poolBefore.seconds;
  }
  side.serverMs += server;
  side.perBlock[side.perBlock.length - 1]! += server / count;
  const statsAfter = await databaseStats(side.admin);
  // The two reads after the block's first one are the benchmark's own transactions.
  side.transactions += statsAfter.transactions - statsBefore.transactions - 1;
  side.sessions += statsAfter.sessions - statsBefore.sessions;
  diff(await statementCounts(side.admin), before, side.counts);
}

/**
 * `BENCH_PG_BASELINE=<another checkout>/dist/src/main.js` adds a third process: that build of Errand on PostgreSQL (a
 * database of its own), in the same rotation, so two builds are compared under the same load of the same run; its
 * figures are printed as `pg_baseline_*`.
 */
const BASELINE = process.env.BENCH_PG_BASELINE;

export const benchmark: Benchmark = {
  name: 'pg-overhead',
  figures: [
    'pg_cpu_per_mention_ratio',
    'pg_statements_per_mention',
    'pg_round_trips_per_mention',
    'pg_transactions_per_mention',
  ],
  async run(): Promise<BenchFigure[]> {
    const server = await startTestPostgres(process.env, [
      '-c',
      'shared_preload_libraries=pg_stat_statements',
      '-c',
      'pg_stat_statements.max=10000',
      // Planning time is measured only when asked: it costs the server a clock read per plan.
      ...(process.env.BENCH_PG_EXEC_TIME ? ['-c', 'pg_stat_statements.track_planning=on'] : []),
      ...(process.env.BENCH_PG_EXEC_TIME === 'nested' ? ['-c', 'pg_stat_statements.track=all'] : []),
    ]);
    const clusters: Cluster[] = [];
    const admins: pg.Client[] = [];
    try {
      const url = await createDatabase(server, `errand_bench_pg_overhead_${process.pid}`);
      const firstAdmin = await adminClient(url);
      admins.push(firstAdmin);
      await firstAdmin.query('create extension if not exists pg_stat_statements');
      const postmaster = await postmasterPid(url);
      const pgSide = async (label: string, dbUrl: string, admin: pg.Client, mainJs?: string): Promise<PgSide> => {
        const metrics = await metricsEnv();
        const cluster = await startCluster(1, dbUrl, answerAfter(MODEL_LATENCY_MS), mainJs, metrics.env);
        clusters.push(cluster);
        return {
          metricsPort: metrics.port,
          poolWaits: 0,
          poolWaitedS: 0,
          label,
          cluster,
          pid: cluster.processes[0]!.errand.child.pid!,
          next: 0,
          mentions: 0,
          cpuMs: 0,
          seconds: 0,
          perBlock: [],
          admin,
          counts: new Map(),
          transactions: 0,
          sessions: 0,
          serverMs: 0,
        };
      };
      const pgSides = [await pgSide('this build', url, firstAdmin)];
      if (BASELINE) {
        const baseUrl = await createDatabase(server, `errand_bench_pg_overhead_base_${process.pid}`);
        const baseAdmin = await adminClient(baseUrl);
        admins.push(baseAdmin);
        await baseAdmin.query('create extension if not exists pg_stat_statements');
        pgSides.push(await pgSide(`baseline ${BASELINE}`, baseUrl, baseAdmin, BASELINE));
      }
      const sqliteCluster = await startCluster(
        1,
        null,
        answerAfter(MODEL_LATENCY_MS),
        undefined,
        (await metricsEnv()).env,
      );
      clusters.push(sqliteCluster);
      const onSqlite: Side = {
        cluster: sqliteCluster,
        pid: sqliteCluster.processes[0]!.errand.child.pid!,
        next: 0,
        mentions: 0,
        cpuMs: 0,
        seconds: 0,
        perBlock: [],
      };
      const onPg = pgSides[0]!;
      // Each side goes first and second in turn, and after each other side: the machine's load (and the server's
      // autovacuum of the block before, which runs in the next) falls on all alike. With a baseline the blocks run
      // SQLite, this build, baseline, SQLite, baseline, this build, …: every ordered pair of sides follows equally
      // often and no side follows itself, so neither build runs after a PostgreSQL block more often than the other.
      // (Alternating one order and its reverse left this build always in the middle; the six orders in turn had this
      // build follow itself once and a PostgreSQL block four times in six, the baseline three. A/A runs still differ
      // by up to ±1.5 ms a mention of Errand's CPU either way: bench/OVERHEAD.md, fifteenth round.)
      const rotation: (PgSide | Side)[] = [onSqlite, ...pgSides];
      const orders =
        rotation.length === 3
          ? [rotation, [rotation[0]!, rotation[2]!, rotation[1]!]]
          : [rotation, [...rotation].reverse()];
      // The warm-up runs in the first round's order, so each side waits as long before its first measured block as
      // before every later one (the warm-up ran the PostgreSQL sides first and the 5 s of quiet below came after it, so
      // they sat idle longer than SQLite before their first block).
      for (const s of orders[0]!) {
        await answerMentions(s.cluster, 0, WARMUP, OUTSTANDING);
        s.next = WARMUP;
      }
      for (let i = 0; i < BLOCKS; i++) {
        const order = orders[i % orders.length]!;
        for (const s of order) {
          if (s === onSqlite) await block(onSqlite, BLOCK);
          else await pgBlock(s as PgSide, postmaster, BLOCK);
        }
      }
      // What each costs while nothing happens (lease renewals, heartbeat, the wake-up listener): 5 s of quiet after the blocks.
      const idleBefore = [procCpuMs(onPg.pid) ?? 0, serverCpuMs(postmaster), procCpuMs(onSqlite.pid) ?? 0];
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const idle = [
        (procCpuMs(onPg.pid) ?? 0) - idleBefore[0]!,
        serverCpuMs(postmaster) - idleBefore[1]!,
        (procCpuMs(onSqlite.pid) ?? 0) - idleBefore[2]!,
      ].map((ms) => ms / (IDLE_MS / 1000));
      const perSqlite = onSqlite.cpuMs / onSqlite.mentions;
      if (process.env.BENCH_PG_EXEC_TIME) for (const side of pgSides) await printExecTimes(side.admin, side.label);
      const traffic = `${BLOCKS} alternating blocks of ${BLOCK} mentions per process after ${WARMUP} warm-up ones, ${OUTSTANDING} waiting at any time, model ${MODEL_LATENCY_MS} ms, MAX_CONCURRENT_RUNS ${SLOTS}`;
      const figures = (side: PgSide, prefix: string, pipelined: boolean): BenchFigure[] => {
        const perPg = side.cpuMs / side.mentions;
        // Block i of this side against block i of SQLite's (the same round of the rotation): how far one block's
        // reading strays from the whole run's, which is what a difference between two runs must beat.
        const rounds = side.perBlock.map((pg, i) => pg / onSqlite.perBlock[i]!);
        const spread = `per round of the rotation ${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)} (median ${median(rounds).toFixed(2)})`;
        const perServer = side.serverMs / side.mentions;
        const b = breakdown(side.counts, side.mentions);
        if (process.env.BENCH_PG_STATEMENTS) {
          process.stderr.write(`# statements per mention, ${side.label}\n`);
          for (const [q, n] of [...side.counts].sort((x, y) => y[1] - x[1]))
            process.stderr.write(`${(n / side.mentions).toFixed(2)}\t${q.replace(/\s+/g, ' ').slice(0, 300)}\n`);
        }
        return [
          {
            name: `${prefix}_cpu_per_mention_ratio`,
            value: (perPg + perServer) / perSqlite,
            unit: 'x',
            detail: `${side.label}: per mention: Errand on PostgreSQL ${perPg.toFixed(2)} ms + PostgreSQL server ${perServer.toFixed(2)} ms, against Errand on SQLite ${perSqlite.toFixed(2)} ms (target ≤ 1.5); ${spread}; mentions/s ${(side.mentions / side.seconds).toFixed(1)} on PostgreSQL, ${(onSqlite.mentions / onSqlite.seconds).toFixed(1)} on SQLite; idle CPU ms/s: Errand on PostgreSQL ${idle[0]!.toFixed(1)} + server ${idle[1]!.toFixed(1)}, Errand on SQLite ${idle[2]!.toFixed(1)}; ${traffic}`,
          },
          {
            name: `${prefix}_statements_per_mention`,
            value: b.statements,
            unit: 'statements',
            detail: `statements sent to PostgreSQL per mention (pg_stat_statements); of them BEGIN ${b.begin.toFixed(2)}, fence checks ${b.fence.toFixed(2)}, savepoints ${b.savepoint.toFixed(2)}, row locks (for update) ${b.forUpdate.toFixed(2)}, NOTIFY ${b.notify.toFixed(2)}, deferred (a preview's message id) ${b.deferred.toFixed(2)}`,
          },
          {
            name: `${prefix}_round_trips_per_mention`,
            value: pipelined ? b.statements - b.begin - b.fence : b.statements,
            unit: 'round trips',
            detail: pipelined
              ? 'statements that wait for their answer before the next is sent: all but BEGIN and the fence checks, which go out behind the statement before them (by construction: pg-pipelined-begin.ts, fenced-run-writes.ts); a deferred write is counted, though it goes out ahead of another statement unless none came within 20 ms (pg-deferred-writes.ts)'
              : 'every statement waits for its answer before the next is sent (a build without pipelining)',
          },
          ...(side.metricsPort === null
            ? []
            : [
                {
                  name: `${prefix}_pool_waits_per_mention`,
                  value: side.poolWaits / side.mentions,
                  unit: 'waits',
                  detail: Number.isNaN(side.poolWaits)
                    ? `${side.label} serves no errand_db_pool_* metrics (a build before them)`
                    : `checkouts that waited for a busy connection of the pool (DATABASE_POOL_SIZE), from /metrics: mean wait ${((1000 * side.poolWaitedS) / Math.max(1, side.poolWaits)).toFixed(2)} ms, ${((1000 * side.poolWaitedS) / side.mentions).toFixed(2)} ms a mention in all`,
                },
              ]),
          {
            name: `${prefix}_transactions_per_mention`,
            value: side.transactions / side.mentions,
            unit: 'transactions',
            detail: `commits and rollbacks per mention (pg_stat_database), autocommitted statements included; ${side.sessions} connections opened during the ${side.mentions} mentions`,
          },
        ];
      };
      return [
        ...figures(onPg, 'pg', true),
        ...(pgSides[1] ? figures(pgSides[1], 'pg_baseline', BASELINE_PIPELINED) : []),
      ];
    } finally {
      await Promise.all(admins.map((a) => a.end().catch(() => undefined)));
      await Promise.all(clusters.map((c) => c.close()));
      await server.stop();
    }
  },
};
