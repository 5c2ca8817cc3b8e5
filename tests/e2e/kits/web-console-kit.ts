import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { errandFileEnv } from '../../fixtures/errand-file.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/fake-openai.js';
import { MemoryAdapter } from '../../fakes/memory-adapter.js';
import { waitFor } from '../../fakes/wait-for.js';

/** Secrets the installation is configured with: no page of the console may ever carry one. */
export const CONFIGURED_SECRETS = {
  OPENAI_API_KEY: 'sk-test-7f3a9c1e5b2d4f608a1b3c5d7e9f0a2b',
  SLACK_BOT_TOKEN: 'xoxb-1111111111-2222222222-ConsoleTestSecretBotToken',
  SLACK_APP_TOKEN: 'xapp-1-A0ERRAND-3333333333-ConsoleTestSecretAppToken',
  ERRAND_SECRET_KEY: 'q8Yv2m7T1pXc4Zr9Lw3Nb6Hs0Jd5Kf8Ga1Vu7Ei2Oy4=',
  /** What the store holds for Alice's sealed Linear tokens. */
  SEALED_TOKENS: 'sealed:v1:LinearAccessTokenThatMustNeverShow0123456789',
} as const;

export const ADMIN = 'U0ADMIN01';
export const ALICE = 'U0ALICE01';
export const BOB = 'U0BOB0001';
export const WORKSPACE = 'T0ERRAND1';

/** Errand with the web console on a free port, a fake model, and data on every page. */
export interface ConsoleKit {
  readonly app: App;
  readonly adapter: MemoryAdapter;
  readonly model: FakeOpenAI;
  readonly baseUrl: string;
  /** Asks `/admin` as `userId` and returns the reply's text. */
  admin(userId?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Builds the installation the browser test reads: an admin, prices, two people's runs (one finished with a
 * tool call and a channel memory, one running on), a schedule, a person's MCP sign-in and a workspace memory.
 * The prompt and the memory carry markup, so escaping shows in every page that prints them.
 */
export async function startConsoleKit(): Promise<ConsoleKit> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-console-'));
  const model = await startFakeOpenAI();
  model.usageWith(() => ({ promptTokens: 1200, completionTokens: 300 }));
  const file = errandFileEnv({
    access: { admins: [`slack:${ADMIN}`] },
    pricing: { 'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 } },
  });
  const { SEALED_TOKENS: _sealed, ...env } = CONFIGURED_SECRETS;
  const config = loadConfig({ ...env, OPENAI_BASE_URL: model.baseUrl, DATABASE_PATH: join(dir, 'errand.db'), ...file });
  const adapter = new MemoryAdapter(WORKSPACE, 'slack');
  const app = await createApp({
    config,
    adapters: [adapter],
    webConsole: { port: 0, pollMs: 100 },
    modelBackoffMs: () => 5,
  });
  await app.start();
  const baseUrl = app.webConsole.localUrl();
  if (!baseUrl) throw new Error('the web console did not start');

  const general = adapter.thread('C0GENERAL1', '1700000000.000100');
  model.reply(
    {
      toolCalls: [
        { name: 'remember', arguments: { text: 'Deploys happen on Fridays <b>after lunch</b>', scope: 'channel' } },
      ],
    },
    { text: 'Noted: deploys happen on Fridays.' },
  );
  await adapter.say(general, 'Remember that deploys happen on Fridays', { userId: ALICE });
  await waitFor(() => adapter.textsIn(general).some((t) => t.includes('Noted')));
  await app.schedules.create({
    channel: { platform: 'slack', workspace: WORKSPACE, channel: 'C0GENERAL1' },
    target: 'channel',
    conversationId: null,
    prompt: 'Summarise yesterday\'s <script>alert("x")</script> incidents',
    kind: 'cron',
    spec: '0 9 * * 1-5',
    timezone: 'Europe/Berlin',
    createdBy: ALICE,
  });
  await app.store.connections.saveConnection(`slack:${ALICE}`, 'linear', {
    tokens: CONFIGURED_SECRETS.SEALED_TOKENS,
    scopes: ['read', 'write'],
    account: 'alice@example.com',
    expiresAt: null,
  });
  await app.store.memory.remember({
    scope: 'workspace',
    subject: `slack:${WORKSPACE}`,
    text: 'The staging cluster is called "blue" & the production one "green"',
    createdBy: `slack:${ADMIN}`,
  });

  return {
    app,
    adapter,
    model,
    baseUrl,
    async admin(userId = ADMIN) {
      const reply = await adapter.command(
        'admin',
        '',
        { platform: 'slack', workspace: WORKSPACE, channel: 'C0GENERAL1' },
        null,
        userId,
      );
      return reply.text;
    },
    async close() {
      await app.stop();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts a run that stays running (its second model request never answers) and returns its conversation. */
export async function startLongRun(kit: ConsoleKit, text: string, channel = 'C0INCIDENT1'): Promise<string> {
  const ref = kit.adapter.thread(channel, '1700000100.000200');
  const before = kit.model.hanging();
  kit.model.reply({ toolCalls: [{ name: 'send_update', arguments: { text: 'Reading the logs' } }] }, { hang: true });
  await kit.adapter.say(ref, text, { userId: BOB });
  await waitFor(() => kit.model.hanging() === before + 1);
  return `slack:${WORKSPACE}:${channel}:1700000100.000200`;
}
