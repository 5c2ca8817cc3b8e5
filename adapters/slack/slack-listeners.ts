import type { InboundSink } from '../../src/chat/inbound.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import type { Logger } from '../../src/logger.js';
import { registerActions, type AnsweredQuestion } from './actions.js';
import { registerAgentSessionEvents, type StoppedStreams } from './agent-session-events.js';
import { registerAssistantEvents } from './assistant-events.js';
import type { AssistantThreads } from './assistant-threads.js';
import type { App } from './bolt.js';
import type { BotThreads } from './bot-threads.js';
import { registerElicitationUi } from './elicitation-ui.js';
import { registerEventHandlers, type BotIdentity } from './event-handlers.js';
import { createEventRoutes } from './event-routes.js';
import { escapeText } from './mrkdwn.js';
import type { SlackMessageBody } from './message-bodies.js';
import { registerScheduleUi } from './schedule-ui.js';
import type { SlackCall } from './slack-call.js';
import type { SlackFileDownload } from './slack-files.js';
import type { SlackOutbound } from './slack-outbound.js';
import { isSlackTs } from './slack-thread-id.js';
import { registerSlashCommands } from './slash-commands.js';
import { registerMemoryActions } from './memory-actions.js';
import { registerPrivateAnswerActions } from './private-answers.js';

export interface SlackListenerDeps {
  readonly sink: () => InboundSink | null;
  readonly surfaces: () => SurfaceSink | null;
  readonly bot: () => BotIdentity | null;
  readonly botThreads: BotThreads;
  readonly cachedTimezone: (userId: string) => string | undefined;
  readonly downloadFile: SlackFileDownload;
  readonly assistant: AssistantThreads;
  /** The streams Slack stopped with its Stop on a session (`agent_session_stopped`). */
  readonly stoppedStreams: StoppedStreams;
  readonly api: SlackCall;
  readonly outbound: Pick<SlackOutbound, 'update'>;
  /** How long a slash command waits for its reply before acknowledging empty. */
  readonly commandAckBudgetMs: number;
  readonly logger: Logger;
}

/**
 * Puts every listener Errand needs on a Bolt app: message events, assistant threads, the schedule
 * form, slash commands and button clicks. Kept in one place so what the app answers is read in one screen.
 */
export function registerSlackListeners(app: App, deps: SlackListenerDeps): void {
  const { logger } = deps;
  // An answered question keeps its text and shows who chose what instead of its buttons.
  const onAnswered = async (a: AnsweredQuestion) => {
    if (!isSlackTs(a.messageTs)) return;
    const question = a.questionText || '…';
    const note = `✅ <@${a.userId}> answered: *${escapeText(a.answer)}*`;
    const shown: SlackMessageBody = {
      text: question,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: question } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: note.slice(0, 3000) }] },
      ],
    };
    if (a.replaceEphemeral) return a.replaceEphemeral(shown);
    await deps.outbound.update(a.channelId, a.messageTs, shown);
  };
  const base = { sink: deps.sink, logger };
  const routes = createEventRoutes(app);
  registerEventHandlers(routes, {
    ...base,
    bot: deps.bot,
    botThreads: deps.botThreads,
    cachedTimezone: deps.cachedTimezone,
    downloadFile: deps.downloadFile,
    onHandedOver: (m) => deps.assistant.requested(m.conversation, m.text),
  });
  registerAssistantEvents(routes, { assistant: deps.assistant, logger });
  registerAgentSessionEvents(routes, { ...base, stoppedStreams: deps.stoppedStreams });
  const scheduleUi = registerScheduleUi(app, routes, { ...base, surfaces: deps.surfaces, call: deps.api });
  registerSlashCommands(app, { ...base, ackBudgetMs: deps.commandAckBudgetMs, scheduleUi });
  registerActions(app, { ...base, onAnswered });
  registerElicitationUi(app, { surfaces: deps.surfaces, call: deps.api, logger });
  registerMemoryActions(app, base);
  registerPrivateAnswerActions(app, base);
  app.error(async (err) => logger.error({ err }, 'Bolt listener error'));
}
