import type { ConversationHistory } from '../../chat/conversation-history.js';
import { parseConversationKey } from '../../chat/conversation-ref.js';
import type { InboundSink } from '../../chat/inbound.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { CatchUpQueries } from '../../store/store.js';

/** How much catching up one start-up may do, so a long outage never stalls start-up or floods a platform. */
export interface CatchUpLimits {
  /** Conversations read at most. */
  readonly conversations: number;
  /** Messages read at most per conversation. */
  readonly messagesPerConversation: number;
  /** Time spent at most, all conversations together. */
  readonly totalMs: number;
  /** Messages older than this are never handed over: de-duplication may have forgotten them. */
  readonly maxAgeMs: number;
}

export interface CatchUpDeps {
  readonly queries: CatchUpQueries;
  /** Each connected platform's message history, by platform name (it only reads). */
  readonly adapters: ReadonlyMap<
    string,
    { readonly capabilities: { readonly history?: ConversationHistory | undefined } }
  >;
  /** The normal inbound path (the dispatcher): de-duplication, stop words, answers, queuing. */
  readonly sink: InboundSink;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly limits: CatchUpLimits;
  /** Checked between messages; true stops catching up (shutdown). */
  readonly cancelled?: () => boolean;
}

export interface CatchUpReport {
  readonly conversations: number;
  readonly handedOver: number;
  /** Conversations whose platform could not be read (logged at warn). */
  readonly failed: number;
}

/**
 * After a restart, reads what people wrote in conversations with open work while Errand was down
 * past the platforms' redeliveries, and hands every person's message after the last one Errand saw
 * to the normal inbound path, oldest first. De-duplication makes a message already handled a no-op.
 * A platform that cannot be read is logged and skipped; nothing here fails start-up.
 */
export async function catchUpMissedMessages(deps: CatchUpDeps): Promise<CatchUpReport> {
  const { limits } = deps;
  const started = deps.clock.now();
  const ids = await deps.queries.openConversations(limits.conversations);
  let handedOver = 0;
  let failed = 0;
  let visited = 0;
  for (const id of ids) {
    if (deps.cancelled?.() || deps.clock.now() - started > limits.totalMs) break;
    const ref = parseConversationKey(id);
    const history = ref ? deps.adapters.get(ref.platform)?.capabilities.history : undefined;
    if (!ref || !history?.readAfter) continue;
    const last = await deps.queries.lastSeen(id);
    if (!last) continue;
    visited++;
    try {
      const page = await history.readAfter(ref, { afterId: last.id, limit: limits.messagesPerConversation });
      const oldest = deps.clock.now() - limits.maxAgeMs;
      for (const m of page.messages) {
        if (deps.cancelled?.()) break;
        if (!m.addressedToBot || m.author.isBot || m.author.isSelf || Date.parse(m.time) < oldest) continue;
        await deps.sink.onMessage({
          messageId: m.id,
          conversation: ref,
          userId: m.author.id,
          userName: m.author.name,
          text: m.text,
          ...(m.direct ? { direct: true } : {}),
          ...(m.roles && m.roles.length > 0 ? { roles: m.roles } : {}),
          ...(m.attachments && m.attachments.length > 0 ? { attachments: m.attachments } : {}),
        });
        handedOver++;
      }
      if (page.truncated)
        deps.logger.warn(
          { conversationId: id, read: page.messages.length },
          'more messages arrived while Errand was down than catch-up reads; the rest are not answered',
        );
    } catch (err) {
      failed++;
      deps.logger.warn(
        { err, conversationId: id },
        'reading messages missed while Errand was down failed; skipping this conversation',
      );
    }
  }
  if (visited > 0)
    deps.logger.info(
      { conversations: visited, handedOver, failed },
      'caught up on messages sent while Errand was down',
    );
  return { conversations: visited, handedOver, failed };
}
