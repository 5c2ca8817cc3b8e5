import type { WebConsoleDeps } from '../console-deps.js';
import { formatTime } from '../format.js';
import { html, type Html } from '../html.js';

/** What Errand remembers for a channel or a workspace (a person's own memories stay theirs), each with Forget. */
export async function memoriesBody(deps: WebConsoleDeps, csrf: string, notice: string | null): Promise<Html> {
  const rows = await deps.queries.sharedMemories(500);
  return html`${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}
    <p>
      Channel and workspace memories go into the prompts of every run there. A person's own memories are not shown: they
      review them with <code>/memory</code>.
    </p>
    ${
      rows.length === 0
        ? html`<p class="muted">Nothing is remembered for a channel or workspace.</p>`
        : html`<div class="wrap">
            <table>
              <caption>
                Channel and workspace memories, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Scope</th>
                  <th scope="col">For</th>
                  <th scope="col">Memory</th>
                  <th scope="col">Stored by</th>
                  <th scope="col">When</th>
                  <th scope="col">Forget</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (m) =>
                    html`<tr>
                      <th scope="row">#${m.id}</th>
                      <td>${m.scope}</td>
                      <td>${m.subject}</td>
                      <td>${m.text}</td>
                      <td>${m.createdBy}</td>
                      <td>${formatTime(m.createdAt)}</td>
                      <td>
                        <form method="post" action="/admin/memories/${m.id}/forget" class="inline">
                          <input type="hidden" name="csrf" value="${csrf}" /><button
                            type="submit"
                            class="danger"
                            aria-label="Forget memory #${m.id}"
                          >
                            Forget
                          </button>
                        </form>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }`;
}
