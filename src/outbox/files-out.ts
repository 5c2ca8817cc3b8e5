import { formatBytes } from '../chat/byte-size.js';
import { conversationKey } from '../chat/conversation-ref.js';
import type { FileLimits, FilePostCapability } from '../chat/file-posts.js';
import type { Logger } from '../logger.js';
import type { FilesOut, OutputFile, PostedFile } from '../sandbox/workspace-ports.js';
import type { Outbox } from './outbox.js';

/** How a platform is named in a note about a file it would not take. */
const PLATFORM_NAMES: Readonly<Record<string, string>> = { slack: 'Slack', discord: 'Discord', console: 'the console' };

/** The messages a run's files become, and the files refused (with the reason the model and the thread are told). */
export interface FilePlan {
  readonly messages: readonly (readonly OutputFile[])[];
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
  const messages: OutputFile[][] = [];
  let current: OutputFile[] = [];
  let bytes = 0;
  for (const [index, file] of files.entries()) {
    const size = file.bytes.byteLength;
    if (size === 0) {
      refused.push({ index, name: file.name, reason: 'it is empty' });
      continue;
    }
    if (size > limits.maxFileBytes) {
      refused.push({ index, name: file.name, reason: `it is ${formatBytes(size)}, and ${where} takes files up to ${formatBytes(limits.maxFileBytes)}` });
      continue;
    }
    if (current.length > 0 && (current.length >= limits.maxFilesPerMessage || bytes + size > limits.maxMessageBytes)) {
      messages.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += size;
  }
  if (current.length > 0) messages.push(current);
  return { messages, refused };
}

/** What the poster of a run's files needs: the outbox, and each platform's way of posting files. */
export interface FilesOutDeps {
  readonly posts: Pick<Outbox, 'atomically' | 'record' | 'recordFiles'>;
  /** The platform's file capability; null where files cannot be posted (no such adapter, or none it has). */
  filesOf(platform: string): FilePostCapability | null;
  readonly logger: Logger;
}

/**
 * FilesOut over the outbox: a run's output files become `files` rows (one per message the platform's limits
 * allow) recorded in one transaction with a note naming any file refused, so they are posted once, in order with
 * the run's other posts, across restarts and processes. Resolves once recorded; what each file became is for the
 * model (`posted: false` with the reason for a refused one).
 */
export function createFilesOut(deps: FilesOutDeps): FilesOut {
  return {
    async postFiles(conversation, runId, files) {
      if (files.length === 0) return [];
      const capability = deps.filesOf(conversation.platform);
      const where = PLATFORM_NAMES[conversation.platform] ?? conversation.platform;
      const plan: FilePlan = capability
        ? planFilePosts(files, capability.limits, conversation.platform)
        : { messages: [], refused: files.map((f, index) => ({ index, name: f.name, reason: `files cannot be posted on ${where}` })) };
      const conversationId = conversationKey(conversation);
      await deps.posts.atomically(async (tx) => {
        for (const message of plan.messages) await deps.posts.recordFiles(conversationId, runId, message, tx);
        if (plan.refused.length > 0) {
          const lines = plan.refused.map((r) => `I couldn't post ${r.name}: ${r.reason}.`);
          await deps.posts.record(conversationId, runId, { purpose: 'note', text: lines.join('\n') }, tx);
        }
      });
      if (plan.refused.length > 0) deps.logger.info({ conversationId, runId, refused: plan.refused.map((r) => r.name) }, 'output files not posted');
      const reasons = new Map(plan.refused.map((r) => [r.index, r.reason]));
      return files.map((f, index): PostedFile => {
        const reason = reasons.get(index);
        return reason === undefined ? { name: f.name, posted: true } : { name: f.name, posted: false, reason };
      });
    },
  };
}
