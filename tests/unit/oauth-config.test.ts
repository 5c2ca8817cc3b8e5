import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { problemsOf } from '../fixtures/config-problems.js';
import { errandFileEnv } from '../fixtures/errand-file.js';

const KEY = randomBytes(32).toString('base64');

const linear = (auth: unknown, extra: Record<string, unknown> = {}) =>
  errandFileEnv({ mcpServers: { linear: { url: 'https://mcp.linear.app/mcp', auth, ...extra } } });

describe('signing in to MCP servers: configuration', () => {
  it('reads "auth": "oauth" and the object form into one shape', () => {
    const env = { OPENAI_API_KEY: 'k', PUBLIC_URL: 'https://errand.example.com/', ERRAND_SECRET_KEY: KEY };
    const short = loadConfig({ ...env, ...linear('oauth') });
    expect(short.file.settings.mcpServers.linear).toMatchObject({
      oauth: { scopes: null, clientId: null, clientSecret: null },
    });
    const full = loadConfig({
      ...env,
      ...linear({ type: 'oauth', scopes: ['read', 'write'], clientId: 'cid', clientSecret: 's3' }),
    });
    expect(full.file.settings.mcpServers.linear).toMatchObject({
      oauth: { scopes: ['read', 'write'], clientId: 'cid', clientSecret: 's3' },
    });
    expect(full.PUBLIC_URL).toBe('https://errand.example.com');
    expect(full.WEB_PORT).toBe(3100);
    const plain = loadConfig({
      OPENAI_API_KEY: 'k',
      ...errandFileEnv({ mcpServers: { docs: { url: 'https://docs.example.com/mcp' } } }),
    });
    expect(plain.file.settings.mcpServers.docs).toMatchObject({ oauth: null });
  });

  it('stops start-up naming PUBLIC_URL and ERRAND_SECRET_KEY when a server uses OAuth without them', () => {
    const problems = problemsOf({ OPENAI_API_KEY: 'k', ...linear('oauth') });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^PUBLIC_URL: required because MCP server "linear" uses "auth": "oauth"/);
    expect(problems[1]).toMatch(
      /^ERRAND_SECRET_KEY: required because MCP server "linear" uses "auth": "oauth".*openssl rand -base64 32/,
    );
    expect(problemsOf({ OPENAI_API_KEY: 'k', PUBLIC_URL: 'https://e.example', ...linear('oauth') })).toEqual([
      expect.stringMatching(/^ERRAND_SECRET_KEY: required/),
    ]);
  });

  it('asks nothing of a disabled OAuth server, nor when no server uses OAuth', () => {
    expect(() => loadConfig({ OPENAI_API_KEY: 'k', ...linear('oauth', { disabled: true }) })).not.toThrow();
    expect(() => loadConfig({ OPENAI_API_KEY: 'k' })).not.toThrow();
  });

  it('refuses a key that is too short or not hex/base64, without echoing it', () => {
    const short = randomBytes(16).toString('hex');
    const problems = problemsOf({ OPENAI_API_KEY: 'k', ERRAND_SECRET_KEY: short });
    expect(problems).toEqual([expect.stringMatching(/^ERRAND_SECRET_KEY: expected at least 32 random bytes, got 16/)]);
    expect(problems.join('\n')).not.toContain(short);
    expect(problemsOf({ OPENAI_API_KEY: 'k', ERRAND_SECRET_KEY: 'not a key!' })).toEqual([
      expect.stringMatching(/^ERRAND_SECRET_KEY: expected hex or base64/),
    ]);
    expect(
      loadConfig({ OPENAI_API_KEY: 'k', ERRAND_SECRET_KEY: randomBytes(48).toString('hex') }).ERRAND_SECRET_KEY,
    ).toBeDefined();
  });

  it('refuses a PUBLIC_URL that is not a plain http(s) address and a WEB_PORT out of range', () => {
    const problems = problemsOf({ OPENAI_API_KEY: 'k', PUBLIC_URL: 'errand.example.com', WEB_PORT: '70000' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['PUBLIC_URL', 'WEB_PORT']);
    expect(problemsOf({ OPENAI_API_KEY: 'k', PUBLIC_URL: 'https://e.example/?x=1' })).toEqual([
      expect.stringMatching(/^PUBLIC_URL: expected the http\(s\) address/),
    ]);
  });

  it('names the JSON path of a malformed auth key, a secret without its client id, and a shared Authorization header', () => {
    const env = { OPENAI_API_KEY: 'k', PUBLIC_URL: 'https://e.example', ERRAND_SECRET_KEY: KEY };
    expect(problemsOf({ ...env, ...linear('oauth2') })).toEqual([
      expect.stringMatching(/mcpServers\.linear\.auth: expected "oauth" or \{ "type": "oauth"/),
    ]);
    expect(problemsOf({ ...env, ...linear({ type: 'oauth', clientSecret: 's' }) })).toEqual([
      expect.stringMatching(/mcpServers\.linear\.auth\.clientSecret: a clientSecret needs the clientId/),
    ]);
    expect(problemsOf({ ...env, ...linear('oauth', { headers: { Authorization: 'Bearer shared' } }) })).toEqual([
      expect.stringMatching(
        /mcpServers\.linear\.headers\.Authorization: a server with "auth": "oauth" sends each person's own token/,
      ),
    ]);
  });
});
