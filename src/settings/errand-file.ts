import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { expandEnv } from './expand-env.js';
import { mcpServersSchema, withShownUrls } from './mcp-server-settings.js';
import { sandboxSettingsSchema } from './sandbox-settings.js';
import { skillsSchema } from './skills-settings.js';
import { slackSettingsSchema } from './slack-settings.js';
import { accessSchema, channelsSchema, limitsSchema, pricingSchema } from './team-settings.js';

/**
 * The configuration file's schema. Only structured settings live here (MCP servers, access, spending limits,
 * model prices, per-channel settings, the sandbox, skills); simple values stay in the environment. Strict, so a misspelled key is an error.
 */
export const errandFileSchema = z.strictObject({
  $schema: z.string().optional(),
  $comment: z.string().optional(),
  mcpServers: mcpServersSchema.default({}),
  access: accessSchema.optional(),
  limits: limitsSchema.default({}),
  pricing: pricingSchema.default({}),
  channels: channelsSchema.default({}),
  slack: slackSettingsSchema.prefault({}),
  sandbox: sandboxSettingsSchema.prefault({}),
  skills: skillsSchema.default({}),
});

export type ErrandFile = z.infer<typeof errandFileSchema>;

/** The parsed file and where it came from (null: no file, every default applies). */
export interface LoadedErrandFile {
  readonly path: string | null;
  readonly settings: ErrandFile;
}

export const DEFAULT_CONFIG_FILE = './errand.json';

function formatPath(path: readonly PropertyKey[]): string {
  return (
    path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('') ||
    '(top level)'
  );
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}; remove ${issue.keys.length > 1 ? 'them' : 'it'} or fix the spelling (errand.example.json lists every key)`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined)
    return `missing; it is required here (see errand.example.json)`;
  return issue.message;
}

/** A server switched off with `"disabled": true` needs none of its secrets: its `${VAR}`s may stay unset. */
function inDisabledServer(raw: unknown, path: readonly (string | number)[]): boolean {
  if (path[0] !== 'mcpServers' || typeof path[1] !== 'string') return false;
  const servers = (raw as { mcpServers?: Record<string, unknown> } | null)?.mcpServers;
  const server = servers?.[path[1]];
  return typeof server === 'object' && server !== null && (server as { disabled?: unknown }).disabled === true;
}

/** " at line L, column C" for a JSON.parse message that gives only a position. */
function lineOf(text: string, message: string): string {
  const match = /at position (\d+)/.exec(message);
  if (!match || /line \d+/.test(message)) return '';
  const before = text.slice(0, Number(match[1]));
  const line = before.split('\n').length;
  return `, line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

/**
 * Reads and validates the configuration file: `ERRAND_CONFIG` when set (it must exist), else
 * `./errand.json` when present. Returns every problem as one line naming the JSON path and the fix, so
 * a user corrects the file in one pass; `${VAR}` references are filled from `env` first.
 */
export function loadErrandFile(
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): { file: LoadedErrandFile; problems: string[] } {
  const explicit = env.ERRAND_CONFIG?.trim() ?? '';
  const path = resolve(cwd, explicit !== '' ? explicit : DEFAULT_CONFIG_FILE);
  const empty: LoadedErrandFile = { path: null, settings: errandFileSchema.parse({}) };
  if (!existsSync(path)) {
    if (explicit === '') return { file: empty, problems: [] };
    return {
      file: empty,
      problems: [
        `ERRAND_CONFIG: the file ${path} does not exist. Create it (copy errand.example.json) or fix the path.`,
      ],
    };
  }
  const label = explicit !== '' ? explicit : 'errand.json';
  let raw: unknown;
  const text = readFileSync(path, 'utf8');
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      file: empty,
      problems: [
        `${label}: not valid JSON (${why}${lineOf(text, why)}). Fix the syntax; comments and trailing commas are not allowed.`,
      ],
    };
  }
  const { value, missing } = expandEnv(raw, env);
  const problems = missing
    .filter((m) => !inDisabledServer(raw, m.path))
    .map(
      (m) =>
        `${label} → ${formatPath(m.path)}: \${${m.name}} is not set in the environment. Set ${m.name} (e.g. in .env) or write the value without \${…}.`,
    );
  const parsed = errandFileSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push(`${label} → ${formatPath(issue.path)}: ${describeIssue(issue)}.`);
  }
  if (!parsed.success || problems.length > 0) return { file: empty, problems };
  const rawServers = (raw as { mcpServers?: unknown } | null)?.mcpServers;
  const settings = { ...parsed.data, mcpServers: withShownUrls(parsed.data.mcpServers, rawServers, env) };
  return { file: { path, settings }, problems: [] };
}
