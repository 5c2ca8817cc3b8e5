import {
  DiscordAPIError,
  DiscordjsError,
  DiscordjsErrorCodes,
  Events,
  GatewayCloseCodes,
  type Client,
} from 'discord.js';
import { AdapterError } from '../../src/errors.js';

/** What to tell the operator for the gateway close codes that mean "fix your setup". */
const FATAL_CLOSE: Partial<Record<number, string>> = {
  [GatewayCloseCodes.AuthenticationFailed]:
    'DISCORD_TOKEN was rejected. Copy the bot token again from the Developer Portal (Bot → Reset Token).',
  [GatewayCloseCodes.DisallowedIntents]:
    'the privileged Message Content intent is not enabled. In the Developer Portal open your application → Bot → Privileged Gateway Intents and turn on MESSAGE CONTENT INTENT.',
  [GatewayCloseCodes.InvalidIntents]: 'Discord rejected the requested gateway intents.',
  [GatewayCloseCodes.ShardingRequired]:
    'Discord requires sharding for this bot (it is in too many servers for one connection).',
};

const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|UND_ERR_\w+)$/;

/** The system error code when `err` (or a cause under it) says the host could not be reached; else null. */
export function unreachableCode(err: unknown): string | null {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 6; depth++, e = e.cause) {
    const code: unknown = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.test(code)) return code;
  }
  return null;
}

/**
 * Logs the client in and resolves once it is ready (READY and every guild received). Rejects with
 * an AdapterError that says what to fix when the token is wrong, the Message Content intent is
 * not enabled, or the gateway does not become ready in time; the client is destroyed then.
 */
export async function connectClient(
  client: Client,
  token: string,
  timeoutMs: number,
  apiUrl = 'https://discord.com/api',
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let closeCode: number | null = null;
  const closed = new Promise<number>((resolve) => {
    const onDisconnect = (event: { code: number }) => {
      closeCode = event.code;
      resolve(event.code);
    };
    client.once(Events.ShardDisconnect, onDisconnect);
  });
  const refused = (code: number, cause?: unknown) =>
    new AdapterError(`Discord refused the connection: ${FATAL_CLOSE[code] ?? `gateway closed with code ${code}`}`, {
      cause,
    });
  const ready = new Promise<void>((resolve, reject) => {
    client.once(Events.ClientReady, () => resolve());
    void closed.then((code) => reject(refused(code)));
    timer = setTimeout(
      () => reject(new AdapterError(`Discord did not become ready within ${Math.round(timeoutMs / 1000)} s`)),
      timeoutMs,
    );
  });
  ready.catch(() => undefined);
  try {
    await client.login(token).catch(async (err: unknown) => {
      const unauthorized =
        (err instanceof DiscordAPIError && err.status === 401) ||
        (err instanceof DiscordjsError &&
          (err.code === DiscordjsErrorCodes.TokenInvalid || err.code === DiscordjsErrorCodes.TokenMissing));
      if (unauthorized)
        throw new AdapterError(
          `Discord refused the connection: ${FATAL_CLOSE[GatewayCloseCodes.AuthenticationFailed]}`,
          { cause: err },
        );
      const network = unreachableCode(err);
      if (network)
        throw new AdapterError(
          `Could not reach Discord at ${apiUrl} (${network}); check the network or DISCORD_API_URL.`,
          { cause: err },
        );
      // A refused gateway session rejects login just before the close code is reported.
      const code =
        closeCode ?? (await Promise.race([closed, new Promise<null>((r) => setTimeout(() => r(null), 250))]));
      const detail = err instanceof Error ? err.message : String(err);
      throw code === null
        ? new AdapterError(`Discord login failed (${detail}); check DISCORD_API_URL and DISCORD_TOKEN.`, { cause: err })
        : refused(code, err);
    });
    await ready;
  } catch (err) {
    await client.destroy().catch(() => undefined);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
