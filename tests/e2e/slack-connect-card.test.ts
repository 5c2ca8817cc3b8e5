import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOAuth, type FakeOAuth } from '../fakes/fake-oauth.js';
import { waitFor } from '../fakes/wait-for.js';
import { startOnFreePort } from '../support/free-port.js';
import { linearEnv } from './linear-oauth-env.js';
import { startErrand, texts, type Errand } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

let e: Errand | null = null;
let fake: FakeOAuth | null = null;
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  await fake?.close();
  e = null;
  fake = null;
});

describe('a Connect request as a task card', () => {
  it('a call that waits for its person to connect shows as a card waiting for them, and the stream is closed while the run waits', async () => {
    const f = (fake = await startFakeOAuth());
    // WEB_PORT is named before the start (PUBLIC_URL holds it): another process may take it meanwhile.
    e = await startOnFreePort((port) => {
      const { env, hub } = linearEnv(f, port);
      return startErrand({ externalTools: hub(), env });
    });
    e.model.reply({ toolCalls: [{ id: 'call_sign_in', name: 'linear__sign_in', arguments: {} }] });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'what is on my linear board?' });
    await waitFor(
      () => texts(e!.slack, ts).some((t) => t.includes('Waiting for you to connect')),
      10_000,
      'the sign-in wait',
    );
    await e.app.coordinator.idle();
    await waitFor(
      () => e!.slack.messages(CHANNEL, ts).find((m) => m.tasks !== undefined)?.streaming === false,
      10_000,
      'the card stream to close',
    );
    const message = e.slack.messages(CHANNEL, ts).find((m) => m.tasks !== undefined)!;
    expect(message.tasks).toEqual([
      { id: 'call_sign_in', title: 'Waiting for you to connect linear', status: 'pending' },
    ]);
  });
});
