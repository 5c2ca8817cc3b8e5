import { z } from 'zod';
import { oauthAuthSchema } from './oauth-settings.js';
import { shownLiteralUrl, shownUrlFromTemplate } from './shown-url.js';

/** Characters allowed in a tool name the model sees; everything else becomes `_`. */
export function sanitizeToolNamePart(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

const channelId = z
  .string()
  .regex(
    /^(slack|discord|console):[A-Za-z0-9_-]+$/,
    'expected "slack:<channel id>" or "discord:<channel id>", e.g. "slack:C0123ABCD"',
  );

const toolList = z
  .array(z.string().min(1, 'tool names must not be empty'))
  .refine((l) => new Set(l).size === l.length, 'lists a tool twice');

/** Errand's own per-server keys, beside the transport keys other MCP clients use. */
const errandKeys = {
  /** `auto`: ask before any tool not annotated readOnlyHint; `always`: ask before every tool; `never`: never ask. */
  approval: z.enum(['auto', 'always', 'never'], { message: 'expected "auto", "always" or "never"' }).default('auto'),
  tools: toolList.optional(),
  disabledTools: toolList.optional(),
  channels: z.array(channelId).optional(),
  timeoutSeconds: z
    .number()
    .int('expected a whole number of seconds')
    .min(1, 'expected at least 1 second')
    .max(3600, 'expected at most 3600 seconds')
    .default(60),
  /**
   * Whose its results are. `private`: what a call returns belongs to the run's principal alone (never in another
   * person's run, never posted in a shared thread without their consent); `public`: meant for everyone (a public
   * docs search). Absent: `private` for a server people sign in to (`auth: oauth`), `public` otherwise.
   */
  visibility: z.enum(['private', 'public'], { message: 'expected "private" or "public"' }).optional(),
  /** Other clients' switch to keep a server listed but off. */
  disabled: z.boolean().default(false),
};

const stdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().trim().min(1, 'command must not be empty'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  ...errandKeys,
});

const httpUrl = z.string().refine(
  (v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  },
  { message: 'expected an http(s) URL, e.g. "https://mcp.example.com/mcp"' },
);

const httpServer = z
  .strictObject({
    /** `sse` forces the old SSE transport; otherwise Streamable HTTP, falling back to SSE. */
    type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
    url: httpUrl,
    headers: z.record(z.string(), z.string()).default({}),
    /** `"oauth"` or `{ type: "oauth", … }`: each person signs in with their own account (see oauth-settings.ts). */
    auth: oauthAuthSchema.optional(),
    ...errandKeys,
  })
  .superRefine((s, ctx) => {
    const shared = Object.keys(s.headers).find((h) => h.toLowerCase() === 'authorization');
    if (s.auth !== undefined && shared !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['headers', shared],
        message:
          'a server with "auth": "oauth" sends each person\'s own token; remove this shared Authorization header',
      });
    }
  })
  .transform(({ auth, ...s }) => ({
    ...s,
    /** Per-person OAuth sign-in, or null when every call uses the `headers` as written. */
    oauth: auth ?? null,
    /**
     * The URL as logs, `/healthz` and the model may see it. Parsed settings take `url` literally; the
     * configuration file's loader replaces this with the form derived from the `${VAR}` template.
     */
    shownUrl: shownLiteralUrl(s.url),
  }));

export type StdioServerSettings = z.infer<typeof stdioServer>;
export type HttpServerSettings = z.infer<typeof httpServer>;
export type McpServerSettings = StdioServerSettings | HttpServerSettings;

/**
 * One entry of `mcpServers`: `command` → stdio, `url` → Streamable HTTP (SSE fallback). The transport is
 * chosen by key rather than by a zod union, so a typo inside a server reports that key, not "no union matched".
 */
export const mcpServerSchema = z.unknown().transform((raw, ctx): McpServerSettings => {
  const isObject = raw !== null && typeof raw === 'object' && !Array.isArray(raw);
  const has = (key: string) => isObject && key in raw;
  if (!isObject || has('command') === has('url')) {
    ctx.addIssue({
      code: 'custom',
      message: 'give either "command" (a local stdio server) or "url" (a remote HTTP server), not both',
    });
    return z.NEVER;
  }
  const parsed = has('command') ? stdioServer.safeParse(raw) : httpServer.safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues)
    ctx.addIssue({ ...issue, path: issue.path } as Parameters<typeof ctx.addIssue>[0]);
  return z.NEVER;
});

/**
 * Gives each HTTP server the shown form of its URL derived from the template in the file (`rawServers`: the
 * `mcpServers` block before `${VAR}` expansion), so the path segments a variable filled in are hidden too.
 */
export function withShownUrls(
  servers: Readonly<Record<string, McpServerSettings>>,
  rawServers: unknown,
  env: NodeJS.ProcessEnv,
): Record<string, McpServerSettings> {
  const templates = z.record(z.string(), z.looseObject({ url: z.string().optional() })).safeParse(rawServers);
  return Object.fromEntries(
    Object.entries(servers).map(([name, server]) => {
      const template = templates.success ? templates.data[name]?.url : undefined;
      return [
        name,
        'url' in server && template !== undefined
          ? { ...server, shownUrl: shownUrlFromTemplate(template, env) }
          : server,
      ];
    }),
  );
}

export const mcpServersSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, 'server names use letters, digits, "_", "-" or "." (at most 40)'),
    mcpServerSchema,
  )
  .superRefine((servers, ctx) => {
    const seen = new Map<string, string>();
    for (const name of Object.keys(servers)) {
      const key = sanitizeToolNamePart(name);
      const other = seen.get(key);
      if (other !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `gives the same tool prefix "${key}__" as server "${other}"; rename one of them`,
        });
      }
      seen.set(key, name);
    }
  });
