import { ErrandError } from '../errors.js';

/**
 * `runs.create` lost the race for a conversation: another run there is already running or waiting
 * (another process, or another flow of this one, started it first; the partial unique index on active
 * runs decided). Thrown, not returned, so the transaction that claimed the task for the run rolls back;
 * the coordinator reads it as "the conversation is busy".
 */
export class ConversationBusyError extends ErrandError {
  readonly conversationId: string;

  constructor(conversationId: string) {
    super('conversation_busy', `conversation ${conversationId} already has an active run`);
    this.conversationId = conversationId;
  }
}
