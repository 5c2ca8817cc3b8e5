import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccessPolicy } from '../../src/access/access-policy.js';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';
import { loadErrandFile } from '../../src/settings/errand-file.js';

function dirWith(file: string, content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'errand-file-'));
  writeFileSync(join(dir, file), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

function problemsFor(content: unknown, env: Record<string, string> = {}): string[] {
  const dir = dirWith('errand.json', content);
  return loadErrandFile(env, dir).problems;
}

describe('configuration file', () => {
  it('is optional: without ERRAND_CONFIG or ./errand.json every default applies', () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-file-'));
    const { file, problems } = loadErrandFile({}, dir);
    expect(problems).toEqual([]);
    expect(file.path).toBeNull();
    expect(file.settings.mcpServers).toEqual({});
  });

  it('offers three default suggested prompts for Slack assistant threads when none are configured', () => {
    const { file, problems } = loadErrandFile({}, dirWith('errand.json', { mcpServers: {} }));
    expect(problems).toEqual([]);
    expect(file.settings.slack.suggestedPrompts).toHaveLength(3);
    for (const prompt of file.settings.slack.suggestedPrompts) expect(prompt.title.length).toBeGreaterThan(0);
  });

  it('rejects suggested prompts Slack would refuse, naming the path', () => {
    const five = Array.from({ length: 5 }, (_, i) => ({ title: `t${i}`, message: `m${i}` }));
    expect(problemsFor({ slack: { suggestedPrompts: five } }).join('\n')).toMatch(
      /slack\.suggestedPrompts: Slack shows at most 4 suggested prompts/,
    );
    expect(problemsFor({ slack: { suggestedPrompts: [{ title: 'Hi' }] } }).join('\n')).toMatch(
      /slack\.suggestedPrompts\[0\]\.message/,
    );
  });

  it('reads ./errand.json and fills ${VAR} from the environment, with defaults for Errand keys', () => {
    const dir = dirWith('errand.json', {
      mcpServers: {
        github: {
          command: 'npx',
          args: ['-y', 'server-github'],
          env: { TOKEN: '${GITHUB_TOKEN}', HOME: '${NOPE:-/tmp}' },
        },
        docs: {
          url: 'https://docs.example.com/mcp',
          headers: { Authorization: 'Bearer ${DOCS_KEY}' },
          approval: 'never',
          channels: ['slack:C0123'],
        },
      },
    });
    const { file, problems } = loadErrandFile({ GITHUB_TOKEN: 'ghp_1', DOCS_KEY: 'k2' }, dir);
    expect(problems).toEqual([]);
    expect(file.path).toBe(join(dir, 'errand.json'));
    expect(file.settings.mcpServers.github).toMatchObject({
      command: 'npx',
      env: { TOKEN: 'ghp_1', HOME: '/tmp' },
      approval: 'auto',
      timeoutSeconds: 60,
    });
    expect(file.settings.mcpServers.docs).toMatchObject({
      url: 'https://docs.example.com/mcp',
      headers: { Authorization: 'Bearer k2' },
      approval: 'never',
    });
  });

  it('keeps the URL template of an HTTP server, so the shown URL hides the path segments a ${VAR} filled in', () => {
    const dir = dirWith('errand.json', {
      mcpServers: { docs: { url: 'https://docs.example.com/s/${DOCS_PATH_KEY}/mcp?api_key=${DOCS_KEY}' } },
    });
    const { file, problems } = loadErrandFile({ DOCS_PATH_KEY: 'pk-9f8e7d', DOCS_KEY: 'k-1a2b3c' }, dir);
    expect(problems).toEqual([]);
    expect(file.settings.mcpServers.docs).toMatchObject({
      url: 'https://docs.example.com/s/pk-9f8e7d/mcp?api_key=k-1a2b3c',
      shownUrl: { text: 'https://docs.example.com/s/•••/mcp' },
    });
  });

  it('reports every problem at once, each with its JSON path and the fix', () => {
    const problems = problemsFor({
      mcpServers: {
        a: { command: 'x', comand: 'typo' },
        b: { url: 'not a url' },
        c: { command: 'y', env: { T: '${MISSING_TOKEN}' }, timeoutSeconds: 0 },
        d: { args: [] },
      },
      acess: {},
    });
    const text = problems.join('\n');
    expect(text).toMatch(/errand\.json → mcpServers\.a: unknown key "comand"; remove it or fix the spelling/);
    expect(text).toMatch(/errand\.json → mcpServers\.b\.url: expected an http\(s\) URL/);
    expect(text).toMatch(
      /errand\.json → mcpServers\.c\.env\.T: \$\{MISSING_TOKEN\} is not set in the environment\. Set MISSING_TOKEN/,
    );
    expect(text).toMatch(/errand\.json → mcpServers\.c\.timeoutSeconds: expected at least 1 second/);
    expect(text).toMatch(/errand\.json → mcpServers\.d: give either "command" .* or "url"/);
    expect(text).toMatch(/errand\.json → \(top level\): unknown key "acess"/);
    expect(problems).toHaveLength(6);
  });

  it('does not ask for the secrets of a server switched off with "disabled": true', () => {
    const problems = problemsFor({
      mcpServers: {
        off: { url: 'https://x.example/mcp', headers: { Authorization: 'Bearer ${OFF_KEY}' }, disabled: true },
        on: { command: 'x', env: { T: '${ON_KEY}' } },
      },
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/mcpServers\.on\.env\.T: \$\{ON_KEY\} is not set/);
  });

  it('rejects server names that give the same tool prefix after sanitising', () => {
    const problems = problemsFor({ mcpServers: { 'my.files': { command: 'a' }, my_files: { command: 'b' } } });
    expect(problems.join('\n')).toMatch(
      /mcpServers\.my_files: gives the same tool prefix "my_files__" as server "my\.files"; rename one/,
    );
  });

  it('says where invalid JSON is and that comments are not allowed', () => {
    const problems = problemsFor('{ "mcpServers": { // no\n } }');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^errand\.json: not valid JSON \(.+line 1, column 19\)\. Fix the syntax/);
  });

  it('requires the file ERRAND_CONFIG names to exist', () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-file-'));
    const { problems } = loadErrandFile({ ERRAND_CONFIG: 'team.json' }, dir);
    expect(problems[0]).toMatch(/^ERRAND_CONFIG: the file .*team\.json does not exist/);
  });

  it('is reported together with environment problems by loadConfig', () => {
    const dir = dirWith('custom.json', { mcpServers: { x: { url: 'ftp://x' } } });
    try {
      loadConfig({ ERRAND_CONFIG: 'custom.json', HEARTBEAT_SECONDS: 'soon' }, dir);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const text = (err as ConfigError).problems.join('\n');
      expect(text).toMatch(/HEARTBEAT_SECONDS/);
      expect(text).toMatch(/custom\.json → mcpServers\.x\.url/);
      expect(text).toMatch(/OPENAI_API_KEY/);
    }
  });
});

describe('pricing and dollar limits', () => {
  it('accepts prices per model in dollars per million tokens, cached input optional', () => {
    const dir = dirWith('errand.json', {
      pricing: { 'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 } },
      limits: { usdPerDay: 10 },
    });
    const { file, problems } = loadErrandFile({}, dir);
    expect(problems).toEqual([]);
    expect(file.settings.pricing).toEqual({ 'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 } });
    expect(file.settings.limits.usdPerDay).toBe(10);
  });

  it('rejects negative or missing prices, unknown price keys and non-positive dollar limits, naming the path', () => {
    const text = problemsFor({
      pricing: {
        a: { inputPerMTok: -1, outputPerMTok: 1 },
        b: { inputPerMTok: 1 },
        c: { inputPerMTok: 1, outputPerMTok: 1, perCall: 2 },
      },
      limits: { usdPerRun: 0 },
    }).join('\n');
    expect(text).toMatch(/pricing\.a\.inputPerMTok: expected dollars per million tokens, 0 or more/);
    expect(text).toMatch(/pricing\.b\.outputPerMTok: missing/);
    expect(text).toMatch(/pricing\.c: unknown key "perCall"/);
    expect(text).toMatch(/limits\.usdPerRun: expected a positive number of dollars/);
  });
});

describe('errand.example.json', () => {
  const root = join(import.meta.dirname, '../..');
  it('is a valid configuration file', () => {
    const { problems, file } = loadErrandFile(
      { ERRAND_CONFIG: 'errand.example.json', GITHUB_TOKEN: 'x', DOCS_API_KEY: 'y' },
      root,
    );
    expect(problems).toEqual([]);
    expect(Object.keys(file.settings.mcpServers)).toEqual(['files', 'github', 'docs', 'linear']);
    expect(file.settings.limits).toEqual({
      tokensPerRun: 50000,
      tokensPerUserPerDay: 200000,
      tokensPerDay: 2000000,
      usdPerRun: 0.5,
      usdPerUserPerDay: 2,
      usdPerDay: 20,
    });
    expect(file.settings.pricing['gpt-4o-mini']).toEqual({
      inputPerMTok: 0.15,
      outputPerMTok: 0.6,
      cachedInputPerMTok: 0.075,
    });
    expect(Object.keys(file.settings.channels)).toEqual(['slack:C0123ABCD', 'discord:112233445566778899']);
    expect(file.settings.access).toMatchObject({
      directMessages: 'allowlist',
      schedules: 'admins',
      admins: ['slack:U0ADMIN01', 'discord:445566778899001122'],
    });
    expect(file.settings.access?.users).toContain('discord:role:334455667788990011');
    expect(file.settings.slack.suggestedPrompts.map((p) => p.title)).toEqual([
      'Summarise this week',
      'Daily stand-up reminder',
      'Triage issues',
    ]);
  });

  it('lets the console user in when pasted as it stands, so `npm start` without platform tokens answers', () => {
    const { file } = loadErrandFile(
      { ERRAND_CONFIG: 'errand.example.json', GITHUB_TOKEN: 'x', DOCS_API_KEY: 'y' },
      root,
    );
    const access = createAccessPolicy(file.settings.access);
    // The console's one conversation is a direct one with its user, `you`.
    expect(
      access.check({ platform: 'console', userId: 'you' }, { platform: 'console', channel: 'console', direct: true }),
    ).toMatchObject({ allowed: true });
  });

  it('shows every access key, written out rather than left to defaults', async () => {
    const { readFileSync } = await import('node:fs');
    const raw = JSON.parse(readFileSync(join(root, 'errand.example.json'), 'utf8')) as {
      access?: Record<string, unknown>;
    };
    expect(Object.keys(raw.access ?? {}).sort()).toEqual([
      'admins',
      'channels',
      'directMessages',
      'schedules',
      'users',
    ]);
  });

  it('shows every per-server key', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(join(root, 'errand.example.json'), 'utf8');
    for (const key of [
      'command',
      'args',
      'env',
      'cwd',
      'type',
      'url',
      'headers',
      'approval',
      'tools',
      'disabledTools',
      'channels',
      'timeoutSeconds',
      'disabled',
    ]) {
      expect(text).toContain(`"${key}":`);
    }
  });
});
