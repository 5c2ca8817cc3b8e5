import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { problemsOf } from '../fixtures/config-problems.js';

describe('config', () => {
  it('applies the documented defaults and falls back to the console adapter', () => {
    const c = loadConfig({ OPENAI_API_KEY: 'sk-test' });
    expect(c.OPENAI_MODEL).toBe('gpt-4o-mini');
    expect(c.SLACK_MODE).toBe('socket');
    expect(c.SLACK_PORT).toBe(3000);
    expect(c.DISCORD_THREADS).toBe(true);
    expect(c.DATABASE_PATH).toBe('./data/errand.db');
    expect(c.HEARTBEAT_SECONDS).toBe(60);
    expect(c.MAX_CONCURRENT_RUNS).toBe(8);
    expect(c.MAX_STEPS).toBe(25);
    expect(c.ASK_TIMEOUT_MINUTES).toBe(1440);
    expect(c.DEFAULT_TIMEZONE).toBe('UTC');
    expect(c.MIN_INTERVAL_MINUTES).toBe(5);
    expect(c.MAX_SCHEDULES_PER_CHANNEL).toBe(50);
    expect(c.MISSED_GRACE_MINUTES).toBe(60);
    expect(c.LOG_LEVEL).toBe('info');
    expect(c.platforms).toEqual(['console']);
  });

  it('keeps SQLite unless DATABASE_URL names a PostgreSQL server, and says what to put there', () => {
    const sqlite = loadConfig({ OPENAI_API_KEY: 'k', DATABASE_URL: '' });
    expect(sqlite.DATABASE_URL).toBeUndefined();
    expect(sqlite).toMatchObject({ DATABASE_POOL_SIZE: 4, RUN_LEASE_SECONDS: 30, GATEWAY_LOCK_RETRY_SECONDS: 5 });
    expect(sqlite.ERRAND_PROCESS_ID).toBeUndefined();
    expect(loadConfig({ OPENAI_API_KEY: 'k', DATABASE_URL: 'postgresql://u:p@db:5432/errand' }).DATABASE_URL).toBe(
      'postgresql://u:p@db:5432/errand',
    );
    const problems = problemsOf({
      OPENAI_API_KEY: 'k',
      DATABASE_URL: 'mysql://db/errand',
      DATABASE_POOL_SIZE: '0',
      RUN_LEASE_SECONDS: '2',
      GATEWAY_LOCK_RETRY_SECONDS: '61',
      ERRAND_PROCESS_ID: 'two words',
    });
    expect(problems.find((p) => p.startsWith('DATABASE_URL:'))).toMatch(
      /postgres:\/\/.*unset to keep the embedded SQLite file/,
    );
    expect(problems.map((p) => p.split(':')[0])).toEqual(
      expect.arrayContaining([
        'DATABASE_POOL_SIZE',
        'RUN_LEASE_SECONDS',
        'GATEWAY_LOCK_RETRY_SECONDS',
        'ERRAND_PROCESS_ID',
      ]),
    );
  });

  it('names the variable and the problem for each malformed value, all at once', () => {
    const problems = problemsOf({
      OPENAI_API_KEY: 'k',
      HEARTBEAT_SECONDS: 'soon',
      MAX_CONCURRENT_RUNS: '0',
      DISCORD_THREADS: 'maybe',
      SLACK_MODE: 'carrier-pigeon',
      DEFAULT_TIMEZONE: 'Mars/Olympus',
      OPENAI_BASE_URL: 'localhost:11434',
      LOG_LEVEL: 'loud',
    });
    const joined = problems.join('\n');
    expect(problems).toHaveLength(7);
    expect(joined).toMatch(/HEARTBEAT_SECONDS: expected a whole number, got "soon"/);
    expect(joined).toMatch(/MAX_CONCURRENT_RUNS: expected a number from 1 to 1000, got 0/);
    expect(joined).toMatch(/DISCORD_THREADS: expected true or false, got "maybe"/);
    expect(joined).toMatch(/SLACK_MODE: expected "socket" or "http"/);
    expect(joined).toMatch(/DEFAULT_TIMEZONE: "Mars\/Olympus" is not an IANA timezone/);
    expect(joined).toMatch(/OPENAI_BASE_URL: expected an http\(s\) URL/);
    expect(joined).toMatch(/LOG_LEVEL: expected one of/);
    for (const p of problems) expect(p).toMatch(/\.env\.example/);
  });

  it('requires the credentials that the chosen Slack mode needs', () => {
    expect(problemsOf({ OPENAI_API_KEY: 'k', SLACK_BOT_TOKEN: 'xoxb-1' }).join()).toMatch(
      /SLACK_APP_TOKEN: required when SLACK_MODE=socket/,
    );
    expect(problemsOf({ OPENAI_API_KEY: 'k', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_MODE: 'http' }).join()).toMatch(
      /SLACK_SIGNING_SECRET: required when SLACK_MODE=http/,
    );
    expect(
      problemsOf({ OPENAI_API_KEY: 'k', SLACK_BOT_TOKEN: 'xapp-wrong', SLACK_APP_TOKEN: 'xapp-1' }).join(),
    ).toMatch(/SLACK_BOT_TOKEN: expected a bot token starting with "xoxb-"/);
  });

  it('reports missing companions beside malformed values, in one pass', () => {
    const problems = problemsOf({ SLACK_BOT_TOKEN: 'xoxb-1', HEARTBEAT_SECONDS: 'fast' }).join('\n');
    expect(problems).toMatch(/HEARTBEAT_SECONDS: expected a whole number/);
    expect(problems).toMatch(/SLACK_APP_TOKEN: required/);
    expect(problems).toMatch(/OPENAI_API_KEY: required/);
  });

  it('requires a model key unless a custom endpoint is set', () => {
    expect(problemsOf({}).join()).toMatch(/OPENAI_API_KEY: required/);
    expect(loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }).OPENAI_API_KEY).toBeUndefined();
  });

  it('enables each platform whose token is set', () => {
    const c = loadConfig({
      OPENAI_API_KEY: 'k',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      DISCORD_TOKEN: 'd',
    });
    expect(c.platforms).toEqual(['slack', 'discord']);
  });
});
