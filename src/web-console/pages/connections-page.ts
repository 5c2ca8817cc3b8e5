import type { WebConsoleDeps } from '../console-deps.js';
import { formatTime } from '../format.js';
import { html, type Html } from '../html.js';

/** People's sign-ins to MCP servers (account, scopes, since; never a token), each with Revoke. */
export async function connectionsBody(deps: WebConsoleDeps, csrf: string, notice: string | null): Promise<Html> {
  const rows = await deps.queries.connections(1000);
  return html`${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}
    <p>
      Revoke forgets the person's tokens for that server, as <code>/connections disconnect</code> does; their next call
      asks them to sign in again.
    </p>
    ${
      rows.length === 0
        ? html`<p class="muted">Nobody is signed in to an MCP server.</p>`
        : html`<div class="wrap">
            <table>
              <caption>
                Sign-ins to MCP servers, by person
              </caption>
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Server</th>
                  <th scope="col">Account</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Since</th>
                  <th scope="col">Token expires</th>
                  <th scope="col">Revoke</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (c) =>
                    html`<tr>
                      <th scope="row">${c.principal}</th>
                      <td>${c.server}</td>
                      <td>${c.account ?? '—'}</td>
                      <td>${c.scopes.join(' ') || '—'}</td>
                      <td>${formatTime(c.connectedAt)}</td>
                      <td>${formatTime(c.expiresAt)}</td>
                      <td>
                        <form method="post" action="/admin/connections/revoke" class="inline">
                          <input type="hidden" name="csrf" value="${csrf}" /><input
                            type="hidden"
                            name="principal"
                            value="${c.principal}"
                          /><input type="hidden" name="server" value="${c.server}" /><button
                            type="submit"
                            class="danger"
                            aria-label="Revoke ${c.principal}'s sign-in to ${c.server}"
                          >
                            Revoke
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
