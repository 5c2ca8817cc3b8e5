import type { App } from '@slack/bolt';
import { z } from 'zod';
import { isCommandName, type CommandName, type CommandReply, type InboundSink } from '../../src/chat/inbound.js';
import type { Logger } from '../../src/logger.js';
import { replyBody } from './home-views.js';
import type { ScheduleUi } from './schedule-ui.js';
import { isDmChannel, toChannelRef } from './slack-thread-id.js';

const commandSchema = z.object({
  command: z.string(),
  text: z.string().default(''),
  user_id: z.string().min(1),
  channel_id: z.string().min(1),
  team_id: z.string().min(1),
  trigger_id: z.string().optional(),
});

/** `/tasks`, `/errand-tasks`, `/errand_tasks` → `tasks`; null for a command that is not Errand's. */
export function commandNameOf(command: string): CommandName | null {
  const bare = command
    .replace(/^\//, '')
    .replace(/^errand[-_]/, '')
    .toLowerCase();
  return isCommandName(bare) ? bare : null;
}

export interface SlashCommandDeps {
  readonly sink: () => InboundSink | null;
  readonly logger: Logger;
  /** How long to wait for the reply before acknowledging empty and answering via response_url (Slack allows 3 s). */
  readonly ackBudgetMs: number;
  /** Opens the schedule modal (`/schedules add`). */
  readonly scheduleUi: ScheduleUi;
}

const ephemeral = (reply: CommandReply) => ({ response_type: 'ephemeral' as const, ...replyBody(reply) });

/**
 * Wires the slash commands. Slack gives a command no thread, so it reaches the core with
 * `conversation: null` (act channel-wide). A reply ready within the ack budget goes back in the
 * acknowledgement itself; a slower one is acknowledged at once and sent through `respond`. Both
 * are ephemeral: only the person who typed the command sees them.
 */
export function registerSlashCommands(app: App, deps: SlashCommandDeps): void {
  app.command(
    /^\/(errand[-_])?(tasks|stop|schedules|usage|connections|memory|help|skills|admin)$/i,
    async ({ command, ack, respond }) => {
      const parsed = commandSchema.safeParse(command);
      const name = parsed.success ? commandNameOf(parsed.data.command) : null;
      const sink = deps.sink();
      const channel = parsed.success ? toChannelRef(parsed.data.team_id, parsed.data.channel_id) : null;
      if (!parsed.success || !name || !sink || !channel) {
        await ack({ response_type: 'ephemeral', text: 'Errand could not read this command. Try again in a moment.' });
        return;
      }
      const reply = sink
        .onCommand({
          name,
          args: parsed.data.text.trim(),
          channel,
          conversation: null,
          userId: parsed.data.user_id,
          ...(isDmChannel(parsed.data.channel_id) ? { direct: true } : {}),
        })
        .catch((err: unknown): CommandReply => {
          deps.logger.error({ err, command: name }, 'slash command failed');
          return { text: `Sorry, \`/${name}\` failed. The error was logged; try again in a moment.` };
        });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), deps.ackBudgetMs);
      });
      const quick = await Promise.race([reply, late]);
      clearTimeout(timer);
      const triggerId = parsed.data.trigger_id;
      if (quick?.form && triggerId) {
        await ack();
        await deps.scheduleUi
          .openForm(triggerId, quick.form)
          .catch((err: unknown) => deps.logger.error({ err }, 'opening the schedule form failed'));
        return;
      }
      if (quick) {
        await ack(ephemeral(quick));
        return;
      }
      await ack();
      await respond(ephemeral(await reply)).catch((err: unknown) =>
        deps.logger.error({ err, command: name }, 'answering a slash command failed'),
      );
    },
  );
}
