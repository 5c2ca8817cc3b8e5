import type { PostTicket } from '../agent/agent-types.js';
import { formatBytes } from '../chat/byte-size.js';
import { conversationKey } from '../chat/conversation-ref.js';
import type { FileLimits } from '../chat/file-posts.js';
import { isTargetGone } from '../errors.js';
import type { Logger } from '../logger.js';
import type { FilesOut, OutputFile, PostedFile } from '../attachments/workspace-ports.js';
import type { Outbox } from './outbox.js';
import { HELD_FILES_REASON } from '../privacy/private-answer-texts.js';

/** How a platform is named in a note about a file it would not take. */
const PLATFORM_NAMES: Readonly<Record<string, string>> = { slack: 'Slack', discord: 'Discord', console: 'the console' };

/** The messages a run's files become, and the files refused (with the reason the model and the thread are told). */
export interface FilePlan {
  /** Each message's files, by their index in the files given. */
  readonly messages: readonly (readonly number[])[];
  /** By their index in the files given. */
  readonly refused: readonly { readonly index: number; readonly name: string; readonly reason: string }[];
}

/**
 * Sorts files into messages within the platform's limits, in their order: a file that is empty or past the
 * platform's size for one file is refused; the rest fill messages up to the files and bytes one message takes.
 */
export function planFilePosts(files: readonly OutputFile[], limits: FileLimits, platform: string): FilePlan {
  const where = PLATFORM_NAMES[platform] ?? platform;
  const refused: { index: number; name: string; reason: string }[] = [];
  const messages: number[][] = [];
  let current: number[] = [];
  let bytes = 0;
  for (const [index, file] of files.entries()) {
    const size = file.bytes.byteLength;
    if (size === 0) {
      refused.push({ index, name: file.name, reason: 'it is empty' });
      continue;
    }
    if (size > limits.maxFileBytes) {
      refused.push({
        index,
        name: file.name,
        reason: `it is ${formatBytes(size)}, and ${where} takes files up to ${formatBytes(limits.maxFileBytes)}`,
      });
      continue;
    }
    if (current.length > 0 && (current.length >= limits.maxFilesPerMessage || bytes + size > limits.maxMessageBytes)) {
      messages.push(current);
      current = [];
      bytes = 0;
    }
    current.push(index);
    bytes += size;
  }
  if (current.length > 0) messages.push(current);
  return { messages, refused };
}

/** What the poster of a run's files needs: the outbox, and each platform's limits for files. */
export interface FilesOutDeps {
  readonly posts: Pick<Outbox, 'atomically' | 'record' | 'recordFiles' | 'recordHeldFiles' | 'delivered' | 'store'>;
  /** The platform's files (only their limits are read); null where files cannot be posted (no such adapter, or none it has). */
  filesOf(platform: string): { readonly limits: FileLimits } | null;
  readonly logger: Logger;
}

/**
 * FilesOut over the outbox: a run's output files become `files` rows (one per message the platform's limits
 * allow) recorded in one transaction with a note naming any file refused, so they are posted once, in order with
 * the run's other posts, across restarts and processes. Like `send_update`, it then waits for the platform to
 * have them, so the run's next answer (which may stream straight onto the platform) shows after them; what each
 * file became is for the model (`posted: false` with the reason for a refused or failed one). A post still
 * queued when the wait ends (Errand stopping, or the run's signal aborted) counts as posted: the outbox posts
 * it all the same (after the restart, if it takes one). A stop does not take back files already recorded.
 */
export function createFilesOut(deps: FilesOutDeps): FilesOut {
  return {
    async postFiles(conversation, runId, files, signal, heldFor) {
      if (files.length === 0) return [];
      const limits = deps.filesOf(conversation.platform)?.limits;
      const where = PLATFORM_NAMES[conversation.platform] ?? conversation.platform;
      const plan: FilePlan = limits
        ? planFilePosts(files, limits, conversation.platform)
        : {
            messages: [],
            refused: files.map((f, index) => ({ index, name: f.name, reason: `files cannot be posted on ${where}` })),
          };
      const conversationId = conversationKey(conversation);
      if (heldFor) return holdFiles(deps, { conversationId, runId, owner: heldFor, files, plan, where, signal });
      const tickets = await deps.posts.atomically(async (tx) => {
        const recorded: PostTicket[] = [];
        for (const message of plan.messages)
          recorded.push(
            await deps.posts.recordFiles(
              conversationId,
              runId,
              message.map((i) => files[i]!),
              tx,
            ),
          );
        if (plan.refused.length > 0) {
          const lines = plan.refused.map((r) => `I couldn't post ${r.name}: ${r.reason}.`);
          await deps.posts.record(conversationId, runId, { purpose: 'note', text: lines.join('\n') }, tx);
        }
        return recorded;
      });
      if (plan.refused.length > 0)
        deps.logger.info(
          { conversationId, runId, refused: plan.refused.map((r) => r.name) },
          'output files not posted',
        );
      const reasons = new Map(plan.refused.map((r) => [r.index, r.reason]));
      const failures = await Promise.all(tickets.map((ticket) => failureOf(deps.posts, ticket, where, signal)));
      plan.messages.forEach((message, m) => {
        const failure = failures[m];
        if (failure) for (const i of message) reasons.set(i, failure);
      });
      return files.map((f, index): PostedFile => {
        const reason = reasons.get(index);
        return reason === undefined ? { name: f.name, posted: true } : { name: f.name, posted: false, reason };
      });
    },
  };
}

/**
 * Files from their owner's private material in a conversation others read (DESIGN.md "Private stays private in a
 * shared thread"): kept for their choice and shown to them alone, with any refused file named to them only. Waits for
 * that notice like a post; the model is told the files went to that person, not to the thread.
 */
async function holdFiles(
  deps: FilesOutDeps,
  h: {
    conversationId: string;
    runId: string;
    owner: string;
    files: readonly OutputFile[];
    plan: FilePlan;
    where: string;
    signal: AbortSignal | undefined;
  },
): Promise<readonly PostedFile[]> {
  const held = h.plan.messages.flatMap((message, post) => message.map((i) => ({ ...h.files[i]!, post })));
  const refused = h.plan.refused.map((r) => `I couldn't post ${r.name}: ${r.reason}.`);
  const ticket = await deps.posts.atomically((tx) =>
    deps.posts.recordHeldFiles(h.conversationId, h.runId, { owner: h.owner, files: held, refused }, tx),
  );
  deps.logger.info(
    { conversationId: h.conversationId, runId: h.runId, files: held.length },
    'output files held for their owner',
  );
  const failure = await failureOf(deps.posts, ticket, h.where, h.signal);
  const reasons = new Map(h.plan.refused.map((r) => [r.index, r.reason]));
  return h.files.map((f, index): PostedFile => ({
    name: f.name,
    posted: false,
    reason: reasons.get(index) ?? failure ?? HELD_FILES_REASON,
  }));
}

/** Waits for one message of files; null once the platform has it (or it is queued to be posted), else why not. */
async function failureOf(
  posts: FilesOutDeps['posts'],
  ticket: PostTicket,
  where: string,
  signal: AbortSignal | undefined,
): Promise<string | null> {
  try {
    if ((await posts.delivered(ticket, signal)) !== null) return null;
  } catch (err) {
    if (isTargetGone(err)) return `${where} no longer takes posts in this conversation`;
    throw err;
  }
  const state = await posts.store.state(ticket.at(-1)!);
  return state?.status === 'failed' ? `posting it to ${where} failed` : null;
}
