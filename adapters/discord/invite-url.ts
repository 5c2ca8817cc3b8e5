import { OAuth2Scopes, PermissionFlagsBits, PermissionsBitField } from 'discord.js';

/**
 * Exactly what Errand does in a server, no more: read the channels it is mentioned in, answer
 * there, open a thread on the request and talk in it. Asking for Administrator would make every
 * server owner rightly suspicious.
 */
export const REQUIRED_PERMISSIONS = new PermissionsBitField([
  PermissionFlagsBits.ViewChannel,
  PermissionFlagsBits.SendMessages,
  PermissionFlagsBits.ReadMessageHistory,
  PermissionFlagsBits.CreatePublicThreads,
  PermissionFlagsBits.SendMessagesInThreads,
]);

/** The OAuth2 URL a server admin opens to add the bot (with its slash commands) to a server. */
export function inviteUrl(applicationId: string): string {
  const params = new URLSearchParams({
    client_id: applicationId,
    scope: [OAuth2Scopes.Bot, OAuth2Scopes.ApplicationsCommands].join(' '),
    permissions: REQUIRED_PERMISSIONS.bitfield.toString(),
  });
  return `https://discord.com/oauth2/authorize?${params.toString()}`;
}
