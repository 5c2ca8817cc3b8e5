import type { ScheduleRow } from '../../db/schema.js';
import { describeTiming } from '../../schedules/schedule-timing.js';
import { whenOf } from '../../schedules/schedule-when.js';
import type { WebConsoleDeps } from '../console-deps.js';
import { clip, formatCount, formatTime } from '../format.js';
import { html, type Html } from '../html.js';
import { statusPill } from '../layout.js';

const PAGE = 100;

function where(s: ScheduleRow): string {
  return `${s.platform} · ${s.channel}${s.target === 'thread' ? ' (in a thread)' : ''}`;
}

/** A POST button for one change of one schedule, carrying the session's CSRF token. */
function action(s: ScheduleRow, op: 'pause' | 'resume' | 'delete', csrf: string): Html {
  const label = { pause: 'Pause', resume: 'Resume', delete: 'Delete' }[op];
  return html`<form method="post" action="/admin/schedules/${s.id}/${op}" class="inline">
    <input type="hidden" name="csrf" value="${csrf}" /><button
      type="submit"
      ${op === 'delete' ? html` class="danger"` : ''}
      aria-label="${label} schedule #${s.id}"
    >
      ${label}
    </button>
  </form>`;
}

function row(s: ScheduleRow, csrf: string): Html {
  const canPause = s.status === 'active';
  const canResume = s.status === 'paused' || s.status === 'error';
  return html`<tr>
    <th scope="row">#${s.id}</th>
    <td>${where(s)}</td>
    <td>${clip(s.prompt, 120)}</td>
    <td>
      ${describeTiming(s)}
      <div class="muted">${whenOf(s)}</div>
    </td>
    <td>${statusPill(s.status)}${s.failReason ? html`<div class="muted">${clip(s.failReason, 100)}</div>` : ''}</td>
    <td>${formatTime(s.nextRunAt)}</td>
    <td>${formatTime(s.lastRunAt)}</td>
    <td class="num">${formatCount(s.runCount)}</td>
    <td>${s.platform}:${s.createdBy}</td>
    <td>
      <div class="actions">
        ${canPause ? action(s, 'pause', csrf) : ''}${canResume ? action(s, 'resume', csrf) : ''}<a
          class="button"
          href="/admin/schedules/${s.id}/edit"
          aria-label="Edit schedule #${s.id}"
          >Edit</a
        >${action(s, 'delete', csrf)}
      </div>
    </td>
  </tr>`;
}

/** Every schedule of every channel, a hundred a page, with the same actions (and rights) as the buttons in the chat. */
export async function schedulesBody(
  deps: WebConsoleDeps,
  query: URLSearchParams,
  csrf: string,
  notice: string | null,
): Promise<Html> {
  const pageNo = Math.max(1, Number(/^\d+$/.test(query.get('page') ?? '') ? query.get('page') : 1));
  const [rows, total] = await Promise.all([
    deps.queries.schedules(PAGE, (pageNo - 1) * PAGE),
    deps.queries.countSchedules(),
  ]);
  const pages = Math.max(1, Math.ceil(total / PAGE));
  return html`${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}
    <p>
      ${formatCount(total)} schedule${total === 1 ? '' : 's'}. Changes here follow the same rules as
      <code>/schedules</code> and its buttons, and are recorded in the audit log.
    </p>
    ${
      rows.length === 0
        ? html`<p class="muted">No schedules yet.</p>`
        : html`<div class="wrap">
            <table>
              <caption>
                Schedules, page ${pageNo} of ${pages}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Posts in</th>
                  <th scope="col">Prompt</th>
                  <th scope="col">When</th>
                  <th scope="col">Status</th>
                  <th scope="col">Next run</th>
                  <th scope="col">Last run</th>
                  <th scope="col" class="num">Runs</th>
                  <th scope="col">Created by</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map((s) => row(s, csrf))}
              </tbody>
            </table>
          </div>`
    }
    <nav class="pager" aria-label="Pages of schedules">
      ${pageNo > 1 ? html`<a href="/admin/schedules?page=${pageNo - 1}">Previous page</a>` : ''}${pageNo < pages ? html`<a href="/admin/schedules?page=${pageNo + 1}">Next page</a>` : ''}
    </nav>`;
}

/** Values and errors of the edit form. */
export interface EditForm {
  readonly prompt: string;
  readonly when: string;
  readonly timezone: string;
  readonly errors: Readonly<Partial<Record<'channel' | 'prompt' | 'when' | 'timezone', string>>>;
  readonly note?: string;
}

function field(
  name: 'prompt' | 'when' | 'timezone',
  label: string,
  value: string,
  error: string | undefined,
  hint: string,
): Html {
  const describedBy = `${name}-hint${error ? ` ${name}-error` : ''}`;
  const input =
    name === 'prompt'
      ? html`<textarea
          id="${name}"
          name="${name}"
          aria-describedby="${describedBy}"
          ${error ? html` aria-invalid="true"` : ''}
        >
${value}</textarea>`
      : html`<input
          type="text"
          id="${name}"
          name="${name}"
          value="${value}"
          aria-describedby="${describedBy}"
          ${error ? html` aria-invalid="true"` : ''}
        />`;
  return html`<label for="${name}">${label}</label>${input}
    <p class="hint" id="${name}-hint">${hint}</p>
    ${error ? html`<p class="error" id="${name}-error">${error}</p>` : ''}`;
}

/** The edit form of one schedule: prompt, when and timezone (its channel stays: move it from the chat). */
export function scheduleEditBody(s: ScheduleRow, form: EditForm, csrf: string): Html {
  return html`<p>Schedule #${s.id} posts in ${where(s)}. ${describeTiming(s)}.</p>
    ${form.note ? html`<div class="notice" role="status">${form.note}</div>` : ''}
    ${form.errors.channel ? html`<div class="problem" role="alert">${form.errors.channel}</div>` : ''}
    <form method="post" action="/admin/schedules/${s.id}/edit">
      <input type="hidden" name="csrf" value="${csrf}" />
      ${field('prompt', 'Prompt', form.prompt, form.errors.prompt, 'What Errand is asked each time the schedule fires.')}
      ${field('when', 'When', form.when, form.errors.when, 'A cron like "0 9 * * 1-5", a number of minutes like 60, a date-time like 2026-03-09T09:00, or words like "every weekday at 9".')}
      ${field('timezone', 'Timezone', form.timezone, form.errors.timezone, 'An IANA name such as Europe/Berlin or UTC.')}
      <p class="actions">
        <button type="submit" class="primary">Save</button><a class="button" href="/admin/schedules">Cancel</a>
      </p>
    </form>`;
}
