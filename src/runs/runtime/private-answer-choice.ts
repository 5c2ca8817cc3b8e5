import type { CommandReply, InboundAction } from '../../chat/inbound.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Outbox } from '../../outbox/outbox.js';
import type { HeldFile, PrivateAnswerRow } from '../../privacy/private-answer-store.js';
import { choiceReplies, keptFilesNote, keptFilesReply, keptPrivateNote } from '../../privacy/private-answer-texts.js';
import { POSTED_FOLDER } from '../../sandbox/workspace.js';
import type { WorkspaceStore } from '../../sandbox/workspace-store.js';
import type { StoreWith } from '../../store/store.js';

/** The core Store with the sandbox's workspaces beside it: a shared answer's files are published to the workspace. */
type Store = StoreWith<{ readonly workspaces: WorkspaceStore }>;

/** A Share in thread / Keep private click. */
export type PrivateAnswerClick = Extract<InboundAction, { kind: 'private_answer' }>;

export interface PrivateAnswerChoiceDeps {
  readonly store: Pick<Store, 'atomically' | 'privateAnswers'>;
  /** The shared answer (or files), or the note that it was kept, is recorded in the outbox with the choice. */
  readonly posts: Pick<Outbox, 'record' | 'recordFiles'>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The owner's choice on an answer held for them (DESIGN.md "Private stays private in a shared thread"). Only the
 * owner may choose, not even an admin: the material is theirs and nobody else has seen it. The first choice wins,
 * recorded in one transaction with what it posts — the answer itself (Share; its transcript row becomes public, so
 * later runs of anyone see what is now in the thread), or a short note without it (Keep private) — so a restart or
 * another process cannot post it twice or lose it. Returns what only the clicker is told.
 */
export async function choosePrivateAnswer(
  click: PrivateAnswerClick,
  deps: PrivateAnswerChoiceDeps,
): Promise<CommandReply> {
  const held = await deps.store.privateAnswers.get(click.answerId);
  if (!held) return { text: choiceReplies.gone };
  if (held.owner !== click.userId || !held.conversationId.startsWith(`${click.platform}:`))
    return { text: choiceReplies.notYours(held.owner) };
  if (held.state !== 'held')
    return { text: held.state === 'shared' ? choiceReplies.alreadyShared : choiceReplies.alreadyKept };
  const state = click.choice === 'share' ? 'shared' : 'kept';
  const decided = await deps.store.atomically(async (tx) => {
    if (!(await tx.privateAnswers.decide(held.id, state, deps.clock.now()))) return false;
    if (held.purpose === 'files') return decideFiles(held, state, tx, deps);
    const intent =
      state === 'shared'
        ? { purpose: held.purpose, text: held.text }
        : { purpose: 'note' as const, text: keptPrivateNote(held.owner) };
    await deps.posts.record(held.conversationId, null, intent, tx);
    return true;
  });
  if (!decided) {
    const now = await deps.store.privateAnswers.get(held.id);
    return { text: now?.state === 'shared' ? choiceReplies.alreadyShared : choiceReplies.alreadyKept };
  }
  deps.logger.info(
    { conversationId: held.conversationId, answerId: held.id, choice: state },
    'a private answer was decided by its owner',
  );
  return {
    text: state === 'shared' ? choiceReplies.shared : held.purpose === 'files' ? keptFilesReply : choiceReplies.kept,
  };
}

/**
 * Held files decided: shared, they are posted in the thread (in the messages they were cut into when held) and the
 * workspace's copies of them in `posted/` become public, so later calls of anyone see what is now in the thread;
 * kept, the thread reads only that there were some. Either way their bytes are no longer kept for the choice.
 */
async function decideFiles(
  held: PrivateAnswerRow,
  state: 'shared' | 'kept',
  tx: Store,
  deps: PrivateAnswerChoiceDeps,
): Promise<true> {
  const files = await tx.privateAnswers.filesOf(held.id);
  await tx.privateAnswers.dropFiles(held.id);
  if (state === 'kept') {
    await deps.posts.record(
      held.conversationId,
      null,
      { purpose: 'note', text: keptFilesNote(held.owner, files.length || held.text.split('\n').length) },
      tx,
    );
    return true;
  }
  const posts = new Map<number, HeldFile[]>();
  for (const f of files) posts.set(f.post, [...(posts.get(f.post) ?? []), f]);
  for (const post of [...posts.keys()].sort((a, b) => a - b)) {
    await deps.posts.recordFiles(
      held.conversationId,
      null,
      posts.get(post)!.map(({ name, bytes, mimeType }) => ({ name, bytes, mimeType })),
      tx,
    );
  }
  await tx.workspaces.publish(
    held.conversationId,
    held.owner,
    files.map((f) => ({ path: `${POSTED_FOLDER}/${f.name}`, bytes: f.bytes })),
  );
  return true;
}
