import type { ServerResponse } from 'node:http';
import type { ConsoleUser } from '../admin/admin-sign-in.js';
import type { ScheduleOp } from '../chat/action-id.js';
import type { WebConsoleDeps } from './console-deps.js';
import { redirect, sendHtml } from './console-http.js';
import { html } from './html.js';
import { page } from './layout.js';
import { scheduleEditBody } from './pages/schedules-page.js';

/** A change made through the console: done through the commands' own path, recorded, then back to the page that shows it. */
export interface ActionInput {
  readonly user: ConsoleUser;
  readonly csrf: string;
  readonly form: URLSearchParams;
  readonly res: ServerResponse;
}

const back = (res: ServerResponse, path: string, notice: string) =>
  redirect(res, `${path}?notice=${encodeURIComponent(notice)}`);

/** Stop: the run coordinator's stop, as `/stop` (a run on another process is stopped there: its lease renewal finds it cancelled). */
export async function stopRun(deps: WebConsoleDeps, a: ActionInput, runId: string): Promise<void> {
  const run = await deps.queries.run(runId);
  const path = `/admin/runs/${encodeURIComponent(runId)}`;
  if (!run) return back(a.res, '/admin/runs', 'There is no such run.');
  if (run.status !== 'running' && run.status !== 'waiting_user')
    return back(a.res, path, `This run had already ended (${run.status.replace('_', ' ')}).`);
  const r = await deps.stopRun(run.conversationId, a.user.person);
  await deps.audit.record('change', a.user.key, runId, {
    action: 'stop run',
    target: runId,
    conversationId: run.conversationId,
    stopped: r.stoppedRun,
  });
  back(a.res, path, r.stoppedRun ? 'Stopped.' : 'Nothing was running there any more.');
}

/** Pause, resume or delete: the schedule buttons' own handler, with the admin's rights. */
export async function changeSchedule(
  deps: WebConsoleDeps,
  a: ActionInput,
  id: number,
  op: Exclude<ScheduleOp, 'edit'>,
): Promise<void> {
  const row = await deps.schedules.find(id);
  if (!row) return back(a.res, '/admin/schedules', `There is no schedule #${id}.`);
  const reply = await deps.schedules.onAction(
    {
      kind: 'schedule',
      op,
      scheduleId: id,
      platform: row.platform,
      workspace: row.workspace,
      userId: a.user.person.userId,
      channel: null,
      memberOf: null,
    },
    a.user.person,
  );
  await deps.audit.record('change', a.user.key, null, {
    action: `${op} schedule`,
    target: `#${id}`,
    outcome: reply.text,
  });
  back(a.res, '/admin/schedules', reply.text);
}

/** Edit: the schedule form's own checks and save (the channel stays). */
export async function editSchedule(deps: WebConsoleDeps, a: ActionInput, id: number): Promise<void> {
  const row = await deps.schedules.find(id);
  if (!row) return back(a.res, '/admin/schedules', `There is no schedule #${id}.`);
  const values = {
    channel: row.channel,
    prompt: a.form.get('prompt') ?? '',
    when: a.form.get('when') ?? '',
    timezone: a.form.get('timezone') ?? '',
  };
  const { person } = a.user;
  const result = await deps.schedules.onSubmit({
    platform: row.platform,
    workspace: row.workspace,
    userId: row.createdBy,
    scheduleId: id,
    values,
    memberOf: null,
    actingAs: person,
  });
  if (result.kind === 'saved') {
    await deps.audit.record('change', a.user.key, null, {
      action: 'edit schedule',
      target: `#${id}`,
      prompt: values.prompt,
      when: values.when,
      timezone: values.timezone,
      outcome: result.text,
    });
    return back(a.res, '/admin/schedules', result.text);
  }
  const v = result.form.values;
  const form = {
    prompt: v.prompt,
    when: v.when,
    timezone: v.timezone,
    errors: result.kind === 'errors' ? result.errors : {},
    ...(result.form.note ? { note: result.form.note } : {}),
  };
  sendHtml(
    a.res,
    result.kind === 'errors' ? 400 : 200,
    page(
      `/admin/schedules/${id}/edit`,
      `Edit schedule #${id}`,
      { name: a.user.key, csrf: a.csrf },
      scheduleEditBody(row, form, a.csrf),
    ),
  );
}

/** Revoke: `/connections disconnect`'s path for that person. */
export async function revokeConnection(deps: WebConsoleDeps, a: ActionInput): Promise<void> {
  const principal = a.form.get('principal') ?? '';
  const server = a.form.get('server') ?? '';
  if (!deps.connections || principal === '' || server === '')
    return back(a.res, '/admin/connections', 'Nothing to revoke.');
  const gone = await deps.connections.disconnect(principal, server);
  await deps.audit.record('change', a.user.key, null, {
    action: 'revoke connection',
    target: `${principal} → ${server}`,
    revoked: gone,
  });
  back(
    a.res,
    '/admin/connections',
    gone ? `Revoked ${principal}'s sign-in to ${server}.` : `${principal} was not signed in to ${server}.`,
  );
}

/** Forget: a channel or workspace memory (a person's own are theirs to forget). */
export async function forgetMemory(deps: WebConsoleDeps, a: ActionInput, id: number): Promise<void> {
  const memory = await deps.memory.memory(id);
  if (!memory || memory.scope === 'me')
    return back(a.res, '/admin/memories', `There is no channel or workspace memory #${id}.`);
  await deps.memory.forget(id);
  await deps.audit.record('change', a.user.key, null, {
    action: 'forget memory',
    target: `#${id}`,
    scope: memory.scope,
    subject: memory.subject,
    text: memory.text,
  });
  back(a.res, '/admin/memories', `Forgot memory #${id}.`);
}

/** The answer to a POST without a valid CSRF token: nothing was changed. */
export function sendCsrfRefusal(res: ServerResponse): void {
  sendHtml(
    res,
    403,
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>Refused · Errand console</title>
        </head>
        <body>
          <main>
            <h1>Refused</h1>
            <p>
              This form did not come from your console session (or it is too old). Nothing was changed. Reload the page
              and try again.
            </p>
          </main>
        </body>
      </html>`,
  );
}
