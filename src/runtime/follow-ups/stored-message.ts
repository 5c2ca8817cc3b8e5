import type { RefusalReason } from '../../access/access-policy.js';
import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { InboundAttachment } from '../../chat/inbound.js';
import type { ClaimedTask, SlotHold } from '../../runs/runtime/run-claim.js';

/** What storing an inbound message decided, inside the same transaction that stored it. */
export type Decision =
  | { kind: 'duplicate' }
  | { kind: 'stop'; conversationId: string; all: boolean }
  | { kind: 'refuse'; conversationId: string; text: string }
  | { kind: 'denied'; reason: RefusalReason }
  | { kind: 'over_budget'; conversationId: string; note: string }
  | { kind: 'answer'; runId: string }
  | {
      kind: 'task';
      conversationId: string;
      taskId: number;
      busy: boolean;
      awaitingApproval: boolean;
      files: Files | null;
      claim: ClaimWithMessage | null;
    };

/** A claim made in the message's own transaction: the slot it holds, and what it took (null: nothing was ready). */
export interface ClaimWithMessage {
  hold: SlotHold;
  claimed: ClaimedTask | null;
}

/** A request's files, to read once the platform is acknowledged. */
export interface Files {
  request: string;
  attachments: readonly InboundAttachment[];
}

/** A stored message and what is left to do about it once the platform may be acknowledged. */
export interface StoredMessage {
  decision: Exclude<Decision, { kind: 'duplicate' }>;
  ref: ConversationRef;
  userId: string;
}
