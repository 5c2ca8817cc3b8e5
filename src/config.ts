import { existsSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { decodeSecretKey } from './secrets/secret-key.js';
import { loadErrandFile, type LoadedErrandFile } from './settings/errand-file.js';
import { boolish, int, optionalPort, optionalString, timezone, url } from './settings/env-values.js';
import { DEFAULT_PG_POOL_SIZE } from './settings/pg-pool-size.js';

const envSchema = z.object({
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: url('OPENAI_BASE_URL'),
  OPENAI_MODEL: optionalString.transform((v) => v ?? 'gpt-4o-mini'),
  OPENAI_TIMEOUT_SECONDS: int(120, 1, 3600),
  OPENAI_MAX_TOKENS: int(4096, 1, 1_000_000),
  OPENAI_VISION: boolish(true),
  STREAMING: boolish(true),
  ATTACHMENT_MAX_IMAGE_MB: int(5, 1, 50),
  ATTACHMENT_MAX_TEXT_KB: int(200, 1, 10_000),
  SLACK_BOT_TOKEN: optionalString.refine((v) => v === undefined || v.startsWith('xoxb-'), {
    message: 'expected a bot token starting with "xoxb-" (Slack app → OAuth & Permissions → Bot User OAuth Token)',
  }),
  SLACK_APP_TOKEN: optionalString.refine((v) => v === undefined || v.startsWith('xapp-'), {
    message:
      'expected an app-level token starting with "xapp-" (Slack app → Basic Information → App-Level Tokens, scope connections:write)',
  }),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_MODE: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? 'socket' : v.trim().toLowerCase()))
    .pipe(z.enum(['socket', 'http'], { message: 'expected "socket" or "http"' })),
  SLACK_PORT: int(3000, 0, 65535),
  SLACK_API_URL: url('SLACK_API_URL'),
  /** The largest file Errand posts on Slack (a run's output), in MB; Slack itself takes up to 1 GB. */
  SLACK_MAX_FILE_MB: int(100, 1, 1000),
  DISCORD_TOKEN: optionalString,
  DISCORD_API_URL: url('DISCORD_API_URL'),
  DISCORD_THREADS: boolish(true),
  DISCORD_GUILD_ID: optionalString.refine((v) => v === undefined || /^\d{5,25}$/.test(v), {
    message: 'expected a numeric guild (server) id; enable Developer Mode in Discord and use "Copy Server ID"',
  }),
  DATABASE_PATH: optionalString.transform((v) => v ?? './data/errand.db'),
  DATABASE_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\/\S+$/.test(v), {
    message:
      'expected a PostgreSQL URL such as postgres://errand:secret@db-host:5432/errand (leave it unset to keep the embedded SQLite file at DATABASE_PATH)',
  }),
  DATABASE_POOL_SIZE: int(DEFAULT_PG_POOL_SIZE, 1, 100),
  RUN_LEASE_SECONDS: int(30, 5, 3600),
  GATEWAY_LOCK_RETRY_SECONDS: int(5, 1, 60),
  ERRAND_PROCESS_ID: optionalString.refine((v) => v === undefined || /^[A-Za-z0-9._:-]{1,60}$/.test(v), {
    message:
      'expected a short name of letters, digits, ".", "_", ":" or "-" (e.g. errand-1), unique per running process',
  }),
  HEARTBEAT_SECONDS: int(60, 1, 86_400),
  MAX_CONCURRENT_RUNS: int(8, 1, 1000),
  MAX_STEPS: int(25, 1, 1000),
  MAX_RUN_MINUTES: int(30, 1, 24 * 60),
  ASK_TIMEOUT_MINUTES: int(1440, 1, 60 * 24 * 30),
  CONTEXT_TOKEN_BUDGET: int(16_000, 500, 2_000_000),
  /** The model that writes conversation summaries (compaction); unset: OPENAI_MODEL. */
  COMPACTION_MODEL: optionalString,
  /** Most tokens of long-term memories in one request (0: none are sent). */
  MEMORY_TOKEN_BUDGET: int(1000, 0, 100_000),
  /** Where skills (Agent Skills folders, each with a SKILL.md) are read from. */
  SKILLS_DIR: optionalString.transform((v) => v ?? './skills'),
  /** Most tokens of the enabled skills' names and descriptions in one run's system prompt. */
  SKILLS_TOKEN_BUDGET: int(1000, 0, 100_000),
  DEFAULT_TIMEZONE: timezone,
  MIN_INTERVAL_MINUTES: int(5, 1, 60 * 24 * 365),
  MAX_SCHEDULES_PER_CHANNEL: int(50, 1, 10_000),
  MISSED_GRACE_MINUTES: int(60, 0, 60 * 24 * 30),
  ERRAND_CONFIG: optionalString,
  ERRAND_CONSOLE: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? 'auto' : v.trim().toLowerCase()))
    .pipe(
      z.enum(['auto', 'on'], {
        message: 'expected "auto" (console only on a terminal) or "on" (console even with piped input)',
      }),
    ),
  METRICS_PORT: optionalPort,
  PUBLIC_URL: optionalString
    .refine((v) => v === undefined || publicUrlProblem(v) === null, {
      message:
        "expected the http(s) address where people's browsers reach Errand, without query or fragment, e.g. https://errand.example.com",
    })
    .transform((v) => v?.replace(/\/+$/, '')),
  WEB_PORT: int(3100, 0, 65535),
  ERRAND_SECRET_KEY: optionalString.superRefine((v, ctx) => {
    if (v === undefined) return;
    const decoded = decodeSecretKey(v);
    if (!decoded.ok) ctx.addIssue({ code: 'custom', message: decoded.problem });
  }),
  METRICS_HOST: optionalString.transform((v) => v ?? '127.0.0.1'),
  LOG_LEVEL: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? 'info' : v.trim().toLowerCase()))
    .pipe(
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        message: 'expected one of fatal, error, warn, info, debug, trace, silent',
      }),
    ),
});

/** The names of every environment variable Errand reads (documented in .env.example and the README). */
export const ENV_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** Every setting Errand reads, validated and with defaults applied. */
export type Config = z.infer<typeof envSchema> & {
  /** Which platforms to connect; console when none has a token. */
  readonly platforms: readonly ('slack' | 'discord' | 'console')[];
  /** The configuration file (ERRAND_CONFIG or ./errand.json): MCP servers and other structured settings. */
  readonly file: LoadedErrandFile;
};

/**
 * Parses the environment into a Config, collecting every problem at once so a user
 * fixes their `.env` in one pass. Throws ConfigError (one line per problem, no stack).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? 'environment');
      problems.push(`${name}: ${issue.message}. Set it in .env or the environment (see .env.example).`);
    }
  }
  problems.push(...crossFieldProblems(env));
  const { file, problems: fileProblems } = loadErrandFile(env, cwd);
  problems.push(...fileProblems, ...oauthProblems(env, file), ...webConsolePortProblems(env, file));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const c = parsed.data;
  const platforms: ('slack' | 'discord' | 'console')[] = [];
  if (c.SLACK_BOT_TOKEN) platforms.push('slack');
  if (c.DISCORD_TOKEN) platforms.push('discord');
  if (platforms.length === 0) platforms.push('console');
  return { ...c, platforms, file };
}

/** Checks that involve several variables, on the raw values, so they are reported beside malformed ones. */
function crossFieldProblems(env: NodeJS.ProcessEnv): string[] {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const mode = (env.SLACK_MODE ?? '').trim().toLowerCase() || 'socket';
  const problems: string[] = [];
  if (set('SLACK_BOT_TOKEN') && mode === 'socket' && !set('SLACK_APP_TOKEN')) {
    problems.push(
      'SLACK_APP_TOKEN: required when SLACK_MODE=socket (the default). Create an app-level token with connections:write, or set SLACK_MODE=http with SLACK_SIGNING_SECRET.',
    );
  }
  if (set('SLACK_BOT_TOKEN') && mode === 'http' && !set('SLACK_SIGNING_SECRET')) {
    problems.push(
      'SLACK_SIGNING_SECRET: required when SLACK_MODE=http. Copy it from the Slack app → Basic Information → Signing Secret.',
    );
  }
  if (!set('SLACK_BOT_TOKEN') && (set('SLACK_APP_TOKEN') || set('SLACK_SIGNING_SECRET'))) {
    problems.push(
      'SLACK_BOT_TOKEN: missing while other SLACK_* credentials are set. Add the xoxb- bot token, or remove the other Slack settings.',
    );
  }
  const slackPort = (env.SLACK_PORT ?? '').trim() || '3000';
  if (
    set('SLACK_BOT_TOKEN') &&
    mode === 'http' &&
    set('METRICS_PORT') &&
    Number(env.METRICS_PORT) !== 0 &&
    Number(env.METRICS_PORT) === Number(slackPort)
  ) {
    problems.push(
      `METRICS_PORT: ${slackPort} is also SLACK_PORT, where the Slack HTTP receiver listens. Give /healthz and /metrics a port of their own (e.g. 9464).`,
    );
  }
  if (!set('OPENAI_API_KEY') && !set('OPENAI_BASE_URL')) {
    problems.push(
      'OPENAI_API_KEY: required for the OpenAI endpoint. Set your key, or point OPENAI_BASE_URL at a local OpenAI-compatible server (Ollama, vLLM, LM Studio) that needs none.',
    );
  }
  return problems;
}

/** Why a PUBLIC_URL cannot be the base of OAuth redirects, or null when it can. */
function publicUrlProblem(v: string): string | null {
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'not http(s)';
    if (u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '')
      return 'has a query, fragment or credentials';
    return null;
  } catch {
    return 'not a URL';
  }
}

/**
 * Servers with `auth: "oauth"` need PUBLIC_URL (the redirect goes there) and ERRAND_SECRET_KEY (tokens are
 * stored encrypted): without them no one could sign in, so start-up stops and names the servers. A disabled
 * server needs nothing. A malformed value is reported by the schema already.
 */
function oauthProblems(env: NodeJS.ProcessEnv, file: LoadedErrandFile): string[] {
  const servers = Object.entries(file.settings.mcpServers)
    .filter(([, s]) => !s.disabled && 'url' in s && s.oauth !== null)
    .map(([name]) => name);
  if (servers.length === 0) return [];
  const which = `MCP server${servers.length > 1 ? 's' : ''} ${servers.map((n) => `"${n}"`).join(', ')} ${servers.length > 1 ? 'use' : 'uses'} "auth": "oauth"`;
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const problems: string[] = [];
  if (!set('PUBLIC_URL')) {
    problems.push(
      `PUBLIC_URL: required because ${which}. Set it to where people's browsers reach Errand (e.g. https://errand.example.com); sign-in redirects to \${PUBLIC_URL}/oauth/callback, served on WEB_PORT.`,
    );
  }
  if (!set('ERRAND_SECRET_KEY')) {
    problems.push(
      `ERRAND_SECRET_KEY: required because ${which}; it encrypts the stored sign-in tokens. Generate one with: openssl rand -base64 32`,
    );
  }
  const webPort = Number((env.WEB_PORT ?? '').trim() || '3100');
  if (set('METRICS_PORT') && webPort !== 0 && Number(env.METRICS_PORT) === webPort) {
    problems.push(
      `WEB_PORT: ${webPort} is also METRICS_PORT. The sign-in pages need a port apart from /healthz and /metrics (e.g. WEB_PORT=3100).`,
    );
  }
  const slackPort = slackHttpPort(env);
  if (slackPort !== null && webPort !== 0 && slackPort === webPort) {
    problems.push(
      `WEB_PORT: ${webPort} is also SLACK_PORT, where the Slack HTTP receiver listens. Give the sign-in pages a port of their own (e.g. WEB_PORT=3100) and route \${PUBLIC_URL}/oauth/ to it.`,
    );
  }
  return problems;
}

/** SLACK_PORT when the Slack HTTP receiver listens on it (Slack configured in HTTP mode), else null. */
function slackHttpPort(env: NodeJS.ProcessEnv): number | null {
  const slackHttp = (env.SLACK_BOT_TOKEN ?? '').trim() !== '' && (env.SLACK_MODE ?? '').trim().toLowerCase() === 'http';
  return slackHttp ? Number((env.SLACK_PORT ?? '').trim() || '3000') : null;
}

/**
 * The web console listens on WEB_PORT once someone may sign in to it (admins listed in `access`), before the
 * platforms connect: on SLACK_PORT it would take the Slack HTTP receiver's port, and Slack would then fail to start
 * with a message about a port in use. Said at once instead, naming both. (With an OAuth server the same is said
 * by oauthProblems, once.)
 */
function webConsolePortProblems(env: NodeJS.ProcessEnv, file: LoadedErrandFile): string[] {
  const oauth = Object.values(file.settings.mcpServers).some((s) => !s.disabled && 'url' in s && s.oauth !== null);
  if (oauth || (file.settings.access?.admins.length ?? 0) === 0) return [];
  const webPort = Number((env.WEB_PORT ?? '').trim() || '3100');
  const slackPort = slackHttpPort(env);
  if (slackPort === null || webPort === 0 || slackPort !== webPort) return [];
  return [
    `WEB_PORT: ${webPort} is also SLACK_PORT, where the Slack HTTP receiver listens. The web console (/admin) needs a port of its own: set WEB_PORT to another port (e.g. 3100) and route \${PUBLIC_URL}/admin to it.`,
  ];
}

/** Loads `.env` into process.env when the file exists; real environment variables win. */
export function loadDotEnv(path = '.env'): void {
  if (!existsSync(path)) return;
  const before = { ...process.env };
  process.loadEnvFile(path);
  for (const [k, v] of Object.entries(before)) process.env[k] = v;
}
