import type { TaskRow } from '../../db/schema.js';
import type { WebConsoleDeps } from '../console-deps.js';
import { clip, formatCount, formatTime } from '../format.js';
import { html, type Html } from '../html.js';
import { statusPill } from '../layout.js';
import { placeOf } from './runs-table.js';

const CONVERSATIONS = 100;

function tasksTable(conversationId: string, tasks: readonly TaskRow[]): Html {
  return html`<div class="wrap">
    <table>
      <caption>
        To-dos of ${placeOf(conversationId)}, in queue order
      </caption>
      <thead>
        <tr>
          <th scope="col">Id</th>
          <th scope="col">Title</th>
          <th scope="col">Status</th>
          <th scope="col">Asked by</th>
          <th scope="col">From</th>
          <th scope="col">Blocked by</th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        ${tasks.map(
          (t) =>
            html`<tr>
              <th scope="row">#${t.id}</th>
              <td>
                ${clip(t.title, 100)}${t.resultSummary ? html`<div class="muted">${clip(t.resultSummary, 160)}</div>` : ''}${t.failReason ? html`<div class="muted">${clip(t.failReason, 160)}</div>` : ''}
              </td>
              <td>${statusPill(t.status)}</td>
              <td>${t.requestedBy ?? '—'}</td>
              <td>${t.createdBy}${t.scheduleId !== null ? html` #${t.scheduleId}` : ''}</td>
              <td>${t.blockedBy.length > 0 ? t.blockedBy.map((b) => `#${b}`).join(', ') : '—'}</td>
              <td>${formatTime(t.updatedAt)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/**
 * The to-do list of each conversation: those with open to-dos first. One conversation's list when `?c=` names it,
 * else the hundred most relevant, each under its own heading.
 */
export async function todosBody(deps: WebConsoleDeps, query: URLSearchParams): Promise<Html> {
  const one = query.get('c');
  if (one) {
    const tasks = await deps.tasks.list(one);
    return html`<p><a href="/admin/todos">All conversations</a></p>
      <h2>${placeOf(one)}</h2>
      ${tasks.length > 0 ? tasksTable(one, tasks) : html`<p class="muted">No to-dos here.</p>`}`;
  }
  const conversations = await deps.queries.todoConversations(CONVERSATIONS);
  if (conversations.length === 0) return html`<p class="muted">No conversation has to-dos yet.</p>`;
  const lists = await Promise.all(
    conversations.slice(0, 20).map(async (c) => ({ c, tasks: await deps.tasks.list(c.conversationId) })),
  );
  return html`<div class="wrap">
      <table>
        <caption>
          Conversations with to-dos, open ones first
        </caption>
        <thead>
          <tr>
            <th scope="col">Conversation</th>
            <th scope="col" class="num">Open</th>
            <th scope="col" class="num">All</th>
            <th scope="col">Last change</th>
          </tr>
        </thead>
        <tbody>
          ${conversations.map(
            (c) =>
              html`<tr>
                <th scope="row">
                  <a href="/admin/todos?c=${encodeURIComponent(c.conversationId)}">${placeOf(c.conversationId)}</a>
                </th>
                <td class="num">${formatCount(c.open)}</td>
                <td class="num">${formatCount(c.total)}</td>
                <td>${formatTime(c.latest)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${lists.map(
      ({ c, tasks }) =>
        html`<h2>${placeOf(c.conversationId)}</h2>
          ${tasksTable(c.conversationId, tasks)}`,
    )}`;
}
