import type { Delivery } from '../chat/delivery.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import { AdapterError } from '../errors.js';
import type { OutboxFileStore } from '../store/outbox-file-store.js';
import type { OutboxStore, PendingPost } from '../store/outbox-store.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import { countAttempt } from './attempt-count.js';

/** A `files` row that can never be posted as it is: failed at once, not tried again. */
export class UndeliverableFiles extends Error {}

/**
 * Posts the files of one `files` outbox row through the adapter's `files` capability and returns the platform's
 * id for the message. Exactly once across a crash: the row's key goes with the post (Discord's nonce returns the
 * first message), and the ids of files already uploaded are recorded before they are shared (`staged`, Slack), so
 * a later try looks at those instead of uploading again. Throws UndeliverableFiles when the row cannot be posted
 * at all (the platform takes no files, the bytes are gone, a file grew past the platform's limit).
 */
export async function postFileRow(
  row: PendingPost,
  ref: ConversationRef,
  adapter: Delivery,
  store: OutboxStore,
  files: OutboxFileStore | undefined,
): Promise<string> {
  const capability = adapter.capabilities.files;
  if (!capability) throw new UndeliverableFiles(`${adapter.platform} cannot post files`);
  const stored = files ? await files.filesOf(row.id) : [];
  if (stored.length === 0) throw new UndeliverableFiles('the files of this post are no longer stored');
  const over = stored.find((f) => f.bytes.byteLength > capability.limits.maxFileBytes);
  if (over)
    throw new UndeliverableFiles(
      `${over.name} is over the ${capability.limits.maxFileBytes} bytes ${adapter.platform} takes`,
    );
  const staged = stored.every((f) => f.stagedId !== null) ? stored.map((f) => f.stagedId!) : undefined;
  await countAttempt(store, row);
  const post = {
    files: stored.map(({ name, bytes, mimeType }) => ({ name, bytes, mimeType })),
    idempotencyKey: idempotencyKeyOf(row.id),
    ...(staged ? { staged } : {}),
  };
  const posted = await capability.postFiles(ref, post, {
    staged: async (ids) => {
      if (ids.length !== stored.length)
        throw new AdapterError(`${adapter.platform} staged ${ids.length} files for a post of ${stored.length}`);
      await files!.setStaged(row.id, ids);
    },
  });
  return posted.id;
}
