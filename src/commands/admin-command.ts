import type { Person } from '../access/access-policy.js';
import type { CommandReply, InboundCommand } from '../chat/inbound.js';

/** What `/admin` needs: whether the web console is served, who may use it, and a fresh link. */
export interface AdminCommandDeps {
  /** Null when the web console is not served, with the sentence saying why (and how to turn it on). */
  unavailable(): string | null;
  mayUse(person: Person): boolean;
  /** A single-use sign-in link for this person, valid for 10 minutes. */
  issueLink(person: Person): Promise<string>;
  /** Said under the link when it only works on Errand's own machine (PUBLIC_URL unset); null otherwise. */
  localNote(): string | null;
}

const NOT_ADMIN =
  'Only admins can open the web console. Ask an admin of this workspace to add you to `access.admins` in the configuration file.';

/**
 * `/admin`: a private, single-use link to the web console for an admin. The reply is private wherever the
 * platform allows (Slack ephemeral, Discord's ephemeral interaction reply, the console's own terminal).
 */
export async function handleAdminCommand(
  cmd: InboundCommand,
  deps: AdminCommandDeps | undefined,
): Promise<CommandReply> {
  if (!deps) return { text: 'The web console is not available in this installation.' };
  const person: Person = {
    platform: cmd.channel.platform,
    userId: cmd.userId,
    ...(cmd.roles && cmd.roles.length > 0 ? { roles: cmd.roles } : {}),
  };
  if (!deps.mayUse(person)) return { text: NOT_ADMIN };
  const off = deps.unavailable();
  if (off) return { text: off };
  const link = await deps.issueLink(person);
  const note = deps.localNote();
  return {
    text: [
      `Your sign-in link to Errand's web console: ${link}`,
      'It works once, for 10 minutes, and signs in as you: do not share it.',
      ...(note ? [note] : []),
    ].join('\n'),
  };
}
