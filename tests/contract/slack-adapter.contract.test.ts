import { sharedFiles, startSlackAdapter } from '../e2e/slack-harness.js';
import { directChannelOf, type AgentSessionStatus } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { chatAdapterContract, RecordingSink, RecordingSurfaces } from './chat-adapter-contract.js';
import { fromConversationRef, toConversationRef } from '../../adapters/slack/slack-thread-id.js';
import { conversationKeyContract } from './conversation-key-contract.js';

const ALICE = 'U0ALICE01';
/** Slack's session statuses in the core's words. */
const SESSION_STATES: Record<AgentSessionStatus, string> = { processing: 'working', suspended: 'waiting', active: 'idle', closed: 'closed' };

chatAdapterContract(
  'slack',
  async () => {
    const sink = new RecordingSink();
    const surfaces = new RecordingSurfaces();
    const h = await startSlackAdapter(sink, { surfaces });
    const { fake } = h;
    fake.users.set(ALICE, { name: 'alice', tz: 'Europe/Berlin' });
    const channel = { platform: 'slack', workspace: fake.teamId, channel: 'C0CONTRACT' };
    const fromPerson = (e: Record<string, unknown>) => e.user === ALICE && e.bot_id === undefined;
    return {
      adapter: h.adapter,
      sink,
      channel,
      person: ALICE,
      personTimezone: 'Europe/Berlin',
      mentionBot: async (text) => void (await fake.mention({ user: ALICE, channel: channel.channel, text })),
      personSays: async (c, text) => void (await fake.userMessage({ user: ALICE, channel: c.channel, text, ...(c.thread ? { threadTs: c.thread } : {}) })),
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
        await waitFor(() => fake.deliveries.slice(before).some((d) => d.event.ts === own.id && d.event.bot_id !== undefined), 5000, 'the echo of its own post');
        await fake.settle();
        return fake.deliveries.slice(before).filter((d) => d.event.bot_id !== undefined && d.delivery.status === 200).length;
      },
      runCommand: async (name, args) => {
        const { responseId } = await fake.slashCommand({ command: `/${name}`, text: args, user: ALICE, channel: channel.channel });
        const reply = (await waitFor(() => fake.responses.find((r) => r.id === responseId), 5000, 'the command reply'))!;
        return String(reply.body.text ?? '');
      },
      click: async (c, messageId, buttons, index) => void (await fake.click({ user: ALICE, channel: c.channel, messageTs: messageId, actionId: buttons[index]!.actionId })),
      storedTexts: async (c) => fake.botTexts(c.channel, c.thread),
      noticesTo: async (userId, c) => fake.ephemerals.filter((e) => e.user === userId && e.channel === c.channel && (c.thread === null || e.thread_ts === c.thread)).map((e) => e.text),
      workingShown: async (c) => fake.botTexts(c.channel, c.thread).some((t) => t.startsWith('⏳ Working')),
      surfaces,
      openHome: async () => {
        const published = fake.callsOf('views.publish').length;
        await fake.openHome(ALICE);
        await waitFor(() => fake.callsOf('views.publish').length > published && fake.homeOf(ALICE), 5000, 'the App Home');
      },
      submitScheduleForm: async (prompt, when) => {
        const opened = fake.callsOf('views.open').length;
        await fake.slashCommand({ command: '/schedules', text: 'add', user: ALICE, channel: channel.channel });
        const modal = (await waitFor(() => (fake.callsOf('views.open').length > opened ? fake.modalOf(ALICE) : undefined), 5000, 'the schedule form'))!;
        const published = fake.callsOf('views.publish').length;
        await fake.submitView({ user: ALICE, viewId: modal.id, values: { channel: channel.channel, prompt, when, timezone: 'UTC' } });
        // A saved form closes, and the App Home shows what happened.
        await waitFor(() => fake.callsOf('views.publish').length > published, 5000, 'the App Home to be refreshed');
        return JSON.stringify(fake.homeOf(ALICE)?.view.blocks ?? []);
      },
      storedFiles: (c) => sharedFiles(fake, c.channel, c.thread),
      directFilesOf: (userId) => sharedFiles(fake, directChannelOf(userId), null),
      sessionStates: async (c) => fake.sessionStatuses(c.channel, c.thread!).map((s) => SESSION_STATES[s]),
      stopSession: async (c) => void (await fake.stopAgentSession({ user: ALICE, channel: c.channel, threadTs: c.thread! })),
      teardown: () => h.close(),
    };
  },
  { stopButtons: true, capabilities: ['delete', 'files', 'history', 'postedLookup', 'previewLookup', 'privateAnswers', 'privateFiles', 'session', 'stream', 'timezone'], readAfter: true, surfaces: { home: true, forms: true } },
);

conversationKeyContract('slack', {
  platform: 'slack',
  encode: toConversationRef,
  decode: fromConversationRef,
  dm: { location: { teamId: 'T0TEAM0001', channelId: 'D0ALICE01', threadTs: null }, key: 'slack:T0TEAM0001:D0ALICE01:-' },
  thread: { location: { teamId: 'T0TEAM0001', channelId: 'C024BE91L', threadTs: '1700000000.000100' }, key: 'slack:T0TEAM0001:C024BE91L:1700000000.000100' },
  channel: { location: { teamId: 'T0TEAM0001', channelId: 'C024BE91L', threadTs: null }, key: 'slack:T0TEAM0001:C024BE91L:-' },
  malformed: [
    { teamId: 'T0TEAM0001', channelId: 'general', threadTs: null },
    { teamId: 'team', channelId: 'C024BE91L', threadTs: null },
    { teamId: 'T0TEAM0001', channelId: 'C024BE91L', threadTs: '1700000000' },
    { teamId: 'T0TEAM0001', channelId: 'U0ALICE01', threadTs: null },
  ],
});
