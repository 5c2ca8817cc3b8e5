import type { App } from '@slack/bolt';
import { z } from 'zod';
import { parseElicitationActionId } from '../../src/chat/elicitation-form.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import type { Logger } from '../../src/logger.js';
import {
  ELICITATION_FORM_CALLBACK,
  elicitationModal,
  modalErrors,
  noticeModal,
  readElicitationModal,
  valuesOf,
} from './elicitation-modal.js';
import type { SlackCall } from './slack-call.js';
import { SLACK_PLATFORM } from './slack-thread-id.js';

export interface ElicitationUiDeps {
  /** The core's way in for the form; null before start (clicks are then ignored). */
  readonly surfaces: () => SurfaceSink | null;
  readonly call: SlackCall;
  readonly logger: Logger;
}

const okSchema = z.object({ ok: z.literal(true) });
const clickSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  trigger_id: z.string().optional(),
  actions: z.array(z.object({ action_id: z.string() })).min(1),
});
const FAILED = 'Sorry, that failed. The error was logged; try again in a moment.';

/**
 * An MCP server's question on Slack: **Answer** opens a modal built from the form (within the click's
 * trigger), **Decline** and **Done** answer at once; the modal's submission comes back with field errors on
 * the fields, or closes once the answer went to the server. Whatever only the clicker should read (not
 * theirs, closed) is an ephemeral reply. The thread's post is edited by the core when the question ends.
 */
export function registerElicitationUi(app: App, deps: ElicitationUiDeps): void {
  app.action(/^errand:elicit:/, async ({ ack, body, respond }) => {
    await ack();
    const parsed = clickSchema.safeParse(body);
    const ref = parsed.success ? parseElicitationActionId(parsed.data.actions[0]!.action_id) : null;
    const surfaces = deps.surfaces();
    if (!parsed.success || !ref || !surfaces) return;
    const actor = { id: ref.id, platform: SLACK_PLATFORM, userId: parsed.data.user.id };
    const tell = (text: string) =>
      respond({ response_type: 'ephemeral', replace_original: false, text }).catch((err: unknown) =>
        deps.logger.warn({ err }, 'answering a question button failed'),
      );
    try {
      if (ref.op === 'answer') {
        const reply = await surfaces.onElicitation({ kind: 'open', ...actor });
        if (reply.kind === 'form' && parsed.data.trigger_id)
          await deps.call(
            'views.open',
            { trigger_id: parsed.data.trigger_id, view: elicitationModal(reply.form) },
            okSchema,
          );
        else if (reply.kind === 'refused') await tell(reply.text);
        return;
      }
      const reply = await surfaces.onElicitation({ kind: ref.op, ...actor });
      if ('text' in reply) await tell(reply.text);
    } catch (err) {
      deps.logger.error({ err, op: ref.op }, 'handling a question button failed');
      await tell(FAILED);
    }
  });

  app.view(ELICITATION_FORM_CALLBACK, async ({ ack, body }) => {
    const surfaces = deps.surfaces();
    const read = readElicitationModal(body.view);
    if (!surfaces || !read) {
      await ack({
        response_action: 'update',
        view: noticeModal('Errand could not read this form. Close it and answer again from the thread.') as never,
      });
      return;
    }
    const actor = { id: read.id, platform: SLACK_PLATFORM, userId: body.user.id };
    try {
      // The form again (from the core, where it lives) to map the picked options back to the server's values.
      const open = await surfaces.onElicitation({ kind: 'open', ...actor });
      if (open.kind !== 'form') {
        await ack({
          response_action: 'update',
          view: noticeModal(open.kind === 'refused' ? open.text : 'This question is closed.') as never,
        });
        return;
      }
      const reply = await surfaces.onElicitation({ kind: 'submit', ...actor, values: valuesOf(read, open.form) });
      if (reply.kind === 'errors') await ack({ response_action: 'errors', errors: modalErrors(read, reply.errors) });
      else if (reply.kind === 'refused')
        await ack({ response_action: 'update', view: noticeModal(reply.text) as never });
      else await ack();
    } catch (err) {
      deps.logger.error({ err }, 'handling a question form failed');
      await ack({ response_action: 'update', view: noticeModal(FAILED) as never });
    }
  });
}
