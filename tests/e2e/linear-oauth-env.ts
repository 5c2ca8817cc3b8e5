import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { createMcpHub } from '../../src/composition/mcp-hub.js';
import type { FakeOAuth } from '../fakes/fake-oauth.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';

/**
 * The environment of an Errand on WEB_PORT `port` with one `auth: "oauth"` server, `linear`, in front of the fake
 * authorization server `f`, and its tool servers. `visibility` as the configuration file's (absent: a signed-in
 * server's results are private to the person, the default).
 */
export function linearEnv(
  f: FakeOAuth,
  port: number,
  visibility?: 'public' | 'private',
): { env: Record<string, string>; hub: () => ReturnType<typeof createMcpHub> } {
  const env = {
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    WEB_PORT: String(port),
    ERRAND_SECRET_KEY: randomBytes(32).toString('base64'),
    ...errandFileEnv({
      mcpServers: { linear: { url: f.mcpUrl, auth: 'oauth', ...(visibility ? { visibility } : {}) } },
    }),
  };
  const servers = loadConfig({ OPENAI_API_KEY: 'k', ...env }).file.settings.mcpServers;
  return { env, hub: () => createMcpHub({ servers, logger: capturingLogger().logger }) };
}
