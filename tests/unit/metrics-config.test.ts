import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { problemsOf } from '../fixtures/config-problems.js';

const base = { OPENAI_API_KEY: 'sk-test' };

describe('health and metrics settings', () => {
  it('leave monitoring off unless METRICS_PORT is set, and bind to loopback by default', () => {
    const off = loadConfig(base);
    expect(off.METRICS_PORT).toBeUndefined();
    expect(off.METRICS_HOST).toBe('127.0.0.1');
    const on = loadConfig({ ...base, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' });
    expect(on.METRICS_PORT).toBe(9464);
    expect(on.METRICS_HOST).toBe('0.0.0.0');
    expect(loadConfig({ ...base, METRICS_PORT: ' ' }).METRICS_PORT).toBeUndefined();
  });

  it('reject a port that is not one', () => {
    expect(problemsOf({ ...base, METRICS_PORT: 'ninety' }).join()).toMatch(
      /METRICS_PORT: expected a port number from 0 to 65535, got "ninety"/,
    );
    expect(problemsOf({ ...base, METRICS_PORT: '70000' }).join()).toMatch(/METRICS_PORT: expected a port number/);
  });

  it('refuse to share the Slack HTTP receiver port', () => {
    const slackHttp = { ...base, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_MODE: 'http', SLACK_SIGNING_SECRET: 's' };
    expect(problemsOf({ ...slackHttp, METRICS_PORT: '3000' }).join()).toMatch(/METRICS_PORT: 3000 is also SLACK_PORT/);
    expect(problemsOf({ ...slackHttp, SLACK_PORT: '8080', METRICS_PORT: '8080' }).join()).toMatch(
      /METRICS_PORT: 8080 is also SLACK_PORT/,
    );
    expect(loadConfig({ ...slackHttp, METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
  });
});
