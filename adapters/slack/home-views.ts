import { z } from 'zod';
import type { OutboundButton } from '../../src/chat/outbound-button.js';
import type { CommandReply } from '../../src/chat/inbound.js';
import type { HomeConnections } from '../../src/chat/home-connections.js';
import type { HomeSkills } from '../../src/chat/home-skills.js';
import type {
  HomeMemory,
  HomeModel,
  ScheduleFormField,
  ScheduleFormRequest,
  ScheduleFormValues,
} from '../../src/chat/schedule-form.js';
import { markdownToMrkdwn } from './mrkdwn.js';
import { toSlackButton } from './message-bodies.js';
import { neutraliseSpecialMentions } from './special-mentions.js';

/** The modal's callback id: view_submission for it goes to the schedule form handler. */
export const SCHEDULE_FORM_CALLBACK = 'errand:schedule-form';
/** Block ids of the form's inputs are the neutral field names, so field errors map one to one. */
const ACTION = 'value';
const SECTION_MAX = 3000;

const mrkdwn = (text: string) => neutraliseSpecialMentions(markdownToMrkdwn(text)).slice(0, SECTION_MAX);
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text: mrkdwn(text) || '…' } });

/** Buttons in actions blocks of at most five, so a list of schedules stays readable. */
export function buttonBlocks(buttons: readonly OutboundButton[], blockId?: string): unknown[] {
  const blocks: unknown[] = [];
  for (let i = 0; i < buttons.length; i += 5) {
    blocks.push({
      type: 'actions',
      ...(blockId ? { block_id: `${blockId}-${i / 5}` } : {}),
      elements: buttons.slice(i, i + 5).map(toSlackButton),
    });
  }
  return blocks;
}

/** A command or click reply as an ephemeral message body: text, and its buttons when it has any. */
export function replyBody(reply: CommandReply): { text: string; blocks?: unknown[] } {
  const text = mrkdwn(reply.text);
  if (!reply.buttons || reply.buttons.length === 0) return { text };
  return { text, blocks: [section(reply.text), ...buttonBlocks(reply.buttons.slice(0, 100))].slice(0, 50) };
}

/** The Home tab: a note on top (what the last click did), the person's conversations, the schedules of their channels. */
export function homeView(
  model: HomeModel,
  links: ReadonlyMap<string, string>,
  note: string | null,
): Record<string, unknown> {
  const blocks: unknown[] = [];
  if (note) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: mrkdwn(note) }] });
  blocks.push({ type: 'header', text: { type: 'plain_text', text: 'Your conversations with Errand' } });
  if (model.conversations.length === 0)
    blocks.push(section('Nothing under way. Mention me in a channel to get something done.'));
  for (const [i, c] of model.conversations.entries()) {
    const link = links.get(`${c.conversation.channel}:${c.conversation.thread ?? ''}`);
    const where = link ? `<${link}|open the thread>` : `<#${c.conversation.channel}>`;
    const state =
      c.state === 'running' ? '▶️ working' : c.state === 'waiting' ? '❓ waiting for an answer' : '• queued';
    const more = c.pending > 0 ? ` (+${c.pending} queued)` : '';
    const text = `${state}: *${c.title}*${more} — ${where}`;
    // The block id routes the click to the Home's stop handler (schedule-ui.ts), which has no conversation.
    blocks.push(
      c.stop
        ? { ...section(text), block_id: `errand-home-stop-${i}`, accessory: toSlackButton(c.stop) }
        : section(text),
    );
  }
  if (model.memories) blocks.push(...memoryBlocks(model.memories));
  blocks.push(
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Schedules in your channels' } },
  );
  if (model.schedules.length === 0) blocks.push(section('No schedules in your channels yet.'));
  for (const s of model.schedules) {
    blocks.push(section(`<#${s.channel.channel}> ${s.text}`));
    blocks.push(...buttonBlocks(s.buttons, `errand-schedule-${s.id}`));
  }
  if (model.newSchedule)
    blocks.push({ type: 'actions', block_id: 'errand-new-schedule', elements: [toSlackButton(model.newSchedule)] });
  if (model.connections) blocks.push(...connectionBlocks(model.connections));
  if (model.skills) blocks.push(...skillBlocks(model.skills));
  return { type: 'home', blocks: blocks.slice(0, 100) };
}

/** The Home's "What Errand remembers about you": one section (it stays within the view's 100 blocks), and how to forget. */
function memoryBlocks(memories: readonly HomeMemory[]): unknown[] {
  const lines = memories.map((m) => `• #${m.id} ${m.text} · ${new Date(m.createdAt).toISOString().slice(0, 10)}`);
  const text =
    memories.length > 0
      ? lines.join('\n')
      : 'Nothing yet. Ask me to remember something ("remember that I am on the payments team") and it shows here.';
  return [
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'What Errand remembers about you' } },
    section(text),
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: 'Only your own requests use these. Forget one with `/memory forget <id>` (or the Forget buttons of `/memory`).',
        },
      ],
    },
  ];
}

/** The Home's Skills section: what Errand follows here (one section of text), and for admins what is held back. */
function skillBlocks(skills: HomeSkills): unknown[] {
  const where = (channels: readonly string[] | null) =>
    channels === null ? '' : ` _(in ${channels.map((c) => `<#${c}>`).join(', ')})_`;
  const lines = skills.enabled.map((s) => `• **${s.name}** — ${s.description}${where(s.channels)}`);
  const text =
    lines.length > 0 ? lines.join('\n') : 'No skills are enabled yet. Admins enable one with `/skills enable <name>`.';
  return [
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Skills' } },
    section(text),
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: mrkdwn(
            skills.attention ??
              'Procedures your team wrote down: I open one when a request matches it. `/skills` lists them.',
          ),
        },
      ],
    },
  ];
}

/** The Home's Connections section: each of the person's MCP sign-ins with a Disconnect button, then the servers not connected. */
export function connectionBlocks(connections: HomeConnections): unknown[] {
  const blocks: unknown[] = [
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Your connections' } },
  ];
  if (connections.connected.length === 0) blocks.push(section('You have not connected any MCP server yet.'));
  for (const [i, c] of connections.connected.entries()) {
    // The block id routes the click to the Home's Disconnect handler (schedule-ui.ts).
    blocks.push({
      ...section(c.text),
      block_id: `errand-home-connection-${i}`,
      accessory: toSlackButton(c.disconnect),
    });
  }
  if (connections.open.length > 0) {
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: mrkdwn(
            `Not connected: ${connections.open.join(', ')}. I send you a Connect link when a request needs one.`,
          ),
        },
      ],
    });
  }
  return blocks;
}

const metadataSchema = z.object({ scheduleId: z.number().int().positive().nullable() });

/** The schedule modal: channel, prompt, when and timezone, prefilled; `note` (an interpretation to confirm) on top. */
export function scheduleModal(form: ScheduleFormRequest): Record<string, unknown> {
  const v = form.values;
  const text = (block: ScheduleFormField, label: string, initial: string, hint: string, multiline = false) => ({
    type: 'input',
    block_id: block,
    label: { type: 'plain_text', text: label },
    hint: { type: 'plain_text', text: hint },
    element: { type: 'plain_text_input', action_id: ACTION, multiline, ...(initial ? { initial_value: initial } : {}) },
  });
  const blocks: unknown[] = [];
  if (form.note) blocks.push(section(form.note));
  blocks.push(
    {
      type: 'input',
      block_id: 'channel',
      label: { type: 'plain_text', text: 'Channel' },
      element: {
        type: 'conversations_select',
        action_id: ACTION,
        filter: { include: ['public', 'private'], exclude_bot_users: true },
        ...(v.channel ? { initial_conversation: v.channel } : {}),
      },
    },
    text('prompt', 'Prompt', v.prompt, 'What I should do each time, e.g. "Summarise yesterday\'s open tasks".', true),
    text(
      'when',
      'When',
      v.when,
      'A cron ("0 9 * * 1-5"), minutes ("60"), a date-time ("2026-03-09T09:00") or words ("every weekday at 9").',
    ),
    text('timezone', 'Timezone', v.timezone, 'An IANA name, e.g. Europe/Berlin.'),
  );
  return {
    type: 'modal',
    callback_id: SCHEDULE_FORM_CALLBACK,
    private_metadata: JSON.stringify({ scheduleId: form.scheduleId }),
    title: {
      type: 'plain_text',
      text: form.scheduleId === null ? 'New schedule' : `Edit schedule #${form.scheduleId}`.slice(0, 24),
    },
    submit: { type: 'plain_text', text: 'Save' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}

const stateSchema = z.record(
  z.string(),
  z.record(z.string(), z.object({ value: z.string().nullish(), selected_conversation: z.string().nullish() })),
);
const submissionSchema = z.object({ private_metadata: z.string(), state: z.object({ values: stateSchema }) });

/** Reads a submitted schedule modal; null when it is not one Errand built. */
export function readScheduleModal(view: unknown): { scheduleId: number | null; values: ScheduleFormValues } | null {
  const parsed = submissionSchema.safeParse(view);
  if (!parsed.success) return null;
  let meta: unknown;
  try {
    meta = JSON.parse(parsed.data.private_metadata);
  } catch {
    return null;
  }
  const m = metadataSchema.safeParse(meta);
  if (!m.success) return null;
  const field = (block: string) => {
    const input = parsed.data.state.values[block]?.[ACTION];
    return input?.selected_conversation ?? input?.value ?? '';
  };
  return {
    scheduleId: m.data.scheduleId,
    values: { channel: field('channel'), prompt: field('prompt'), when: field('when'), timezone: field('timezone') },
  };
}
