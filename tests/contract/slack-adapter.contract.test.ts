import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { RunStepStatus } from '../../src/chat/run-step.js';
import { startSlackAdapter } from '../e2e/slack-harness.js';
import { directChannelOf, type AgentSessionStatus, type FakeSlack } from '../fakes/fake-slack.js';
import type { StreamedTask } from '../fakes/slack-stream-chunks.js';
import { waitFor } from '../fakes/wait-for.js';
import { chatAdapterContract, RecordingSink, RecordingSurfaces } from './chat-adapter-contract.js';
import type { StoredFile } from './chat-adapter-harness.js';
import { fromConversationRef, toConversationRef } from '../../adapters/slack/slack-thread-id.js';
import { conversationKeyContract } from './conversation-key-contract.js';

const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
/** Slack's session statuses in the core's words. */
const SESSION_STATES: Record<AgentSessionStatus, string> = {
  processing: 'working',
  suspended: 'waiting',
  active: 'idle',
  closed: 'closed',
};
/** A task card's status as the step's. */
const STEP_STATES: Record<StreamedTask['status'], RunStepStatus> = {
  in_progress: 'running',
  complete: 'done',
  error: 'failed',
  pending: 'waiting',
};

type Block = { type?: string; elements?: { action_id?: string; text?: { text?: string } }[] };
/** The labels of the buttons in a message's blocks. */
const buttonLabels = (blocks: unknown[] | undefined) =>
  ((blocks ?? []) as Block[])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b.elements ?? []).map((e) => e.text?.text ?? ''));

chatAdapterContract(
  'slack',
  async () => {
    const sink = new RecordingSink();
    const surfaces = new RecordingSurfaces();
    const h = await startSlackAdapter(sink, { surfaces });
    const { fake } = h;
    fake.users.set(ALICE, { name: 'alice', tz: 'Europe/Berlin' });
    fake.users.set(BOB, { name: 'bob', tz: 'Europe/Paris' });
    const channel = { platform: 'slack', workspace: fake.teamId, channel: 'C0CONTRACT' };
    const fromPerson = (e: Record<string, unknown>) => e.user === ALICE && e.bot_id === undefined;
    /** What Slack showed to `userId` alone in a conversation (a thread's, or the channel's top level). */
    const shownTo = (userId: string, c: ConversationRef) =>
      fake.ephemeralMessages.filter(
        (e) => e.user === userId && e.channel === c.channel && (e.thread_ts ?? null) === c.thread,
      );
    /** What the person was answered on the response URL of a click or command. */
    const answered = async (responseId: string) =>
      String(
        (await waitFor(() => fake.responses.find((r) => r.id === responseId), 5000, 'the answer to the click'))!.body
          .text ?? '',
      );
    const homePublished = async (click: () => Promise<unknown>) => {
      const published = fake.callsOf('views.publish').length;
      await click();
      await waitFor(() => fake.callsOf('views.publish').length > published && fake.homeOf(ALICE), 5000, 'the App Home');
    };
    return {
      adapter: h.adapter,
      sink,
      channel,
      person: ALICE,
      otherPerson: BOB,
      personTimezone: 'Europe/Berlin',
      mentionBot: async (text) => void (await fake.mention({ user: ALICE, channel: channel.channel, text })),
      personSays: async (c, text) =>
        void (await fake.userMessage({
          user: ALICE,
          channel: c.channel,
          text,
          ...(c.thread ? { threadTs: c.thread } : {}),
        })),
      redeliverLast: async () => {
        const last = [...fake.deliveries].reverse().find((d) => fromPerson(d.event));
        if (!last) throw new Error('nothing to redeliver');
        await fake.sendEvent(last.event, { eventId: last.eventId, retryNum: 1 });
      },
      postAsSelfAndOtherBot: async (c, text) => {
        const before = fake.deliveries.length;
        const threadTs = c.thread ? { threadTs: c.thread } : {};
        const own = await h.adapter.postMessage(c, { text: `<@${fake.botUserId}> ${text}` });
        await fake.otherBotMessage({ channel: c.channel, text: `<@${fake.botUserId}> ${text}`, ...threadTs });
        await waitFor(
          () => fake.deliveries.slice(before).some((d) => d.event.ts === own.id && d.event.bot_id !== undefined),
          5000,
          'the echo of its own post',
        );
        await fake.settle();
        return fake.deliveries.slice(before).filter((d) => d.event.bot_id !== undefined && d.delivery.status === 200)
          .length;
      },
      runCommand: async (name, args) => {
        const { responseId } = await fake.slashCommand({
          command: `/${name}`,
          text: args,
          user: ALICE,
          channel: channel.channel,
        });
        return answered(responseId);
      },
      click: async (c, messageId, buttons, index) =>
        void (await fake.click({
          user: ALICE,
          channel: c.channel,
          messageTs: messageId,
          actionId: buttons[index]!.actionId,
        })),
      storedTexts: async (c) => fake.botTexts(c.channel, c.thread),
      noticesTo: async (userId, c) => shownTo(userId, c).map((e) => e.text),
      privatelyShown: async (userId, c) =>
        shownTo(userId, c).map((e) => ({ text: e.text, buttons: buttonLabels(e.blocks) })),
      workingShown: async (c) => fake.botTexts(c.channel, c.thread).some((t) => t.startsWith('⏳ Working')),
      // Slack shows the run's steps as task cards in the streamed answer.
      stepsShown: async (c) =>
        fake
          .messages(c.channel, c.thread)
          .flatMap((m) => (m.tasks ?? []).map((t) => ({ title: t.title, status: STEP_STATES[t.status] }))),
      directConversation: { ...channel, channel: 'D0ALICE01', thread: null },
      surfaces,
      openHome: () => homePublished(() => fake.openHome(ALICE)),
      homeShown: async () => JSON.stringify(fake.homeOf(ALICE)?.view.blocks ?? []),
      clickOnHome: (actionId) =>
        homePublished(() => fake.clickInView({ user: ALICE, viewId: fake.homeOf(ALICE)!.id, actionId })),
      submitScheduleForm: async (prompt, when) => {
        const opened = fake.callsOf('views.open').length;
        await fake.slashCommand({ command: '/schedules', text: 'add', user: ALICE, channel: channel.channel });
        const modal = (await waitFor(
          () => (fake.callsOf('views.open').length > opened ? fake.modalOf(ALICE) : undefined),
          5000,
          'the schedule form',
        ))!;
        const published = fake.callsOf('views.publish').length;
        await fake.submitView({
          user: ALICE,
          viewId: modal.id,
          values: { channel: channel.channel, prompt, when, timezone: 'UTC' },
        });
        // A saved form closes, and the App Home shows what happened.
        await waitFor(() => fake.callsOf('views.publish').length > published, 5000, 'the App Home to be refreshed');
        return JSON.stringify(fake.homeOf(ALICE)?.view.blocks ?? []);
      },
      clickInCommandReply: async (name, args, actionId) => {
        const { responseId } = await fake.slashCommand({
          command: `/${name}`,
          text: args,
          user: ALICE,
          channel: channel.channel,
        });
        await answered(responseId);
        const click = await fake.clickInReply({ user: ALICE, channel: channel.channel, responseId, actionId });
        return answered(click.responseId);
      },
      answerElicitation: async (c, messageId, buttons, values) => {
        const opened = fake.callsOf('views.open').length;
        await fake.click({ user: ALICE, channel: c.channel, messageTs: messageId, actionId: buttons[0]!.actionId });
        const modal = (await waitFor(
          () => (fake.callsOf('views.open').length > opened ? fake.modalOf(ALICE) : undefined),
          5000,
          "the server's form",
        ))!;
        await fake.submitView({
          user: ALICE,
          viewId: modal.id,
          values: Object.fromEntries(values.map((v, i) => [`field-${i}`, v])),
        });
      },
      actOnElicitation: async (c, messageId, buttons, index) => {
        const click = await fake.click({
          user: ALICE,
          channel: c.channel,
          messageTs: messageId,
          actionId: buttons[index]!.actionId,
        });
        return answered(click.responseId);
      },
      storedFiles: (c) => filesIn(fake, c.channel, c.thread),
      directFilesOf: (userId) => filesIn(fake, directChannelOf(userId), null),
      sessionStates: async (c) => fake.sessionStatuses(c.channel, c.thread!).map((s) => SESSION_STATES[s]),
      stopSession: async (c) =>
        void (await fake.stopAgentSession({ user: ALICE, channel: c.channel, threadTs: c.thread! })),
      teardown: () => h.close(),
    };
  },
  {
    stopButtons: true,
    redelivers: true,
    steps: 'stream',
    threadFallback: false,
    commandReplyButtons: true,
    surfaces: { home: true, forms: true, elicitation: true, disconnect: true },
    capabilities: [
      'delete',
      'files',
      'history',
      'postedLookup',
      'previewLookup',
      'privateAnswers',
      'privateFiles',
      'session',
      'stream',
      'timezone',
    ],
    readAfter: true,
  },
);

/** The files the bot shared in a conversation, downloaded as people get them, each with the message that carries it. */
async function filesIn(fake: FakeSlack, channel: string, thread: string | null): Promise<StoredFile[]> {
  const shares = fake.messages(channel, thread).filter((m) => m.user === fake.botUserId && m.subtype === 'file_share');
  const out: StoredFile[] = [];
  for (const share of shares) {
    for (const file of share.files ?? []) {
      const res = await fetch(String(file.url_private_download), {
        headers: { authorization: 'Bearer xoxb-test-token' },
      });
      out.push({
        name: String(file.name),
        bytes: new Uint8Array(await res.arrayBuffer()),
        mimeType: String(file.mimetype),
        message: share.ts,
      });
    }
  }
  return out;
}

conversationKeyContract('slack', {
  platform: 'slack',
  encode: toConversationRef,
  decode: fromConversationRef,
  dm: {
    location: { teamId: 'T0TEAM0001', channelId: 'D0ALICE01', threadTs: null },
    key: 'slack:T0TEAM0001:D0ALICE01:-',
  },
  thread: {
    location: { teamId: 'T0TEAM0001', channelId: 'C024BE91L', threadTs: '1700000000.000100' },
    key: 'slack:T0TEAM0001:C024BE91L:1700000000.000100',
  },
  channel: {
    location: { teamId: 'T0TEAM0001', channelId: 'C024BE91L', threadTs: null },
    key: 'slack:T0TEAM0001:C024BE91L:-',
  },
  malformed: [
    { teamId: 'T0TEAM0001', channelId: 'general', threadTs: null },
    { teamId: 'team', channelId: 'C024BE91L', threadTs: null },
    { teamId: 'T0TEAM0001', channelId: 'C024BE91L', threadTs: '1700000000' },
    { teamId: 'T0TEAM0001', channelId: 'U0ALICE01', threadTs: null },
  ],
});
