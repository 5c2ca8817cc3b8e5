import { memoryForgetActionId } from '../../chat/action-id.js';
import { channelKey, conversationKey } from '../../chat/conversation-ref.js';
import type { CommandReply, InboundCommand } from '../../chat/inbound.js';
import type { OutboundButton } from '../../chat/outbound-button.js';
import { forgetFor, type MemoryAsker } from '../memory-rules.js';
import type { ConversationSummaryRow, MemoryRow, MemoryStore } from '../memory-store.js';
import { memoryVisibility } from '../memory-visibility.js';

/** Who typed the command, as access rules name them. */
interface MemoryCommandPerson {
  readonly platform: string;
  readonly userId: string;
  readonly roles?: readonly string[];
}

/** What `/memory` needs: the memory store, and who is an admin (they may forget workspace memories). */
export interface MemoryCommandDeps {
  readonly store: Pick<MemoryStore, 'newest' | 'memory' | 'forget' | 'summary' | 'summariesIn'>;
  isAdmin(person: MemoryCommandPerson): boolean;
}

/** Memories listed per section; each gets a Forget button (Discord shows at most 25 buttons). */
const LISTED = 10;
const USAGE = 'Use `/memory` to see what I remember about you and in this channel, or `/memory forget <id>`.';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const minute = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const line = (m: MemoryRow) => `• #${m.id} ${m.text} · ${day(m.createdAt)}`;

function askerOf(cmd: InboundCommand, deps: MemoryCommandDeps): MemoryAsker {
  const person: MemoryCommandPerson = {
    platform: cmd.channel.platform,
    userId: cmd.userId,
    ...(cmd.roles ? { roles: cmd.roles } : {}),
  };
  return { visibility: memoryVisibility(person, cmd.channel), isAdmin: deps.isAdmin(person) };
}

/** Whether this thread (or, where commands carry no thread, which threads of the channel) has a summary. */
async function summaryNote(cmd: InboundCommand, deps: MemoryCommandDeps): Promise<string | null> {
  if (cmd.conversation) {
    const row = await deps.store.summary(conversationKey(cmd.conversation));
    return row
      ? `This conversation has a summary of its older messages (updated ${minute(row.updatedAt)}): I still know what they said.`
      : null;
  }
  const rows: ConversationSummaryRow[] = await deps.store.summariesIn(channelKey(cmd.channel), 50);
  if (rows.length === 0) return null;
  const count = rows.length >= 50 ? '50 or more' : String(rows.length);
  return `${count} conversation${rows.length === 1 ? '' : 's'} here ${rows.length === 1 ? 'has' : 'have'} a summary of older messages (newest updated ${minute(rows[0]!.updatedAt)}).`;
}

async function list(cmd: InboundCommand, deps: MemoryCommandDeps): Promise<CommandReply> {
  const { visibility } = askerOf(cmd, deps);
  const [mine, channel] = await Promise.all([
    deps.store.newest(visibility, LISTED + 1, 'me'),
    deps.store.newest(visibility, LISTED + 1, 'channel'),
  ]);
  const more = (rows: MemoryRow[]) =>
    rows.length > LISTED ? ['• … and older ones (`/memory forget <id>` works for those too)'] : [];
  const shownMine = mine.slice(0, LISTED);
  const shownChannel = channel.slice(0, LISTED);
  const summary = await summaryNote(cmd, deps);
  const text = [
    shownMine.length > 0
      ? '**What I remember about you** (used only in your requests)'
      : 'I remember nothing about you yet.',
    ...shownMine.map(line),
    ...more(mine),
    shownChannel.length > 0
      ? `**What I remember in this ${cmd.direct ? 'conversation' : 'channel'}** (used in every request here)`
      : `I remember nothing for this ${cmd.direct ? 'conversation' : 'channel'} yet.`,
    ...shownChannel.map(line),
    ...more(channel),
    ...(summary ? [summary] : []),
    ...(shownMine.length + shownChannel.length > 0
      ? ['Forget one with its button or `/memory forget <id>`: it is gone from my next request.']
      : ['Ask me to remember something ("remember that I am on the payments team") and it shows here.']),
  ].join('\n');
  const buttons: OutboundButton[] = [...shownMine, ...shownChannel].map((m) => ({
    actionId: memoryForgetActionId(m.id),
    label: `Forget #${m.id}`,
    style: 'danger',
  }));
  return buttons.length > 0 ? { text, buttons } : { text };
}

async function forget(cmd: InboundCommand, deps: MemoryCommandDeps, raw: string): Promise<CommandReply> {
  const id = /^#?(\d{1,15})$/.exec(raw)?.[1];
  if (!id) return { text: `"${raw}" is not a memory id. ${USAGE}` };
  const gone = await forgetFor(deps.store, askerOf(cmd, deps), Number(id));
  if (gone.ok)
    return { text: `Forgot #${id}: “${gone.memory.text}”. It is gone from my next request.`, homeChanged: true };
  return gone.reason === 'admins_only'
    ? { text: `#${id} is remembered for the whole workspace: only Errand admins may forget it.` }
    : {
        text: `There is no memory #${id} that you can see here (yours, or this ${cmd.direct ? 'conversation' : 'channel'}'s). \`/memory\` lists them.`,
      };
}

/** `/memory`: what Errand remembers about the person and in this channel, with Forget buttons; `/memory forget <id>` forgets one. */
export async function handleMemoryCommand(
  cmd: InboundCommand,
  deps: MemoryCommandDeps | undefined,
): Promise<CommandReply> {
  if (!deps) return { text: 'Memory is not available in this installation.' };
  const [verb, target, ...rest] = cmd.args.split(/\s+/).filter((w) => w !== '');
  if (verb === undefined) return list(cmd, deps);
  if (verb.toLowerCase() !== 'forget' || target === undefined || rest.length > 0) return { text: USAGE };
  return forget(cmd, deps, target);
}
