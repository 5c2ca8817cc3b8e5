import { Client, Events, GatewayIntentBits, Partials, RESTEvents, Routes, Status, type Message } from 'discord.js';
import { z } from 'zod';
import type { ConnectionState } from '../../src/chat/chat-adapter.js';
import type { InboundSink } from '../../src/chat/inbound.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import { createDiscordElicitations } from './elicitation-ui.js';
import type { Logger } from '../../src/logger.js';
import type { BotThreads } from './bot-threads.js';
import { connectClient } from './connect.js';
import type { DiscordAdapterOptions } from './discord-adapter-options.js';
import type { DiscordFileDownload } from './discord-attachments.js';
import { rest, type DiscordRest } from './discord-rest.js';
import { handleInteraction } from './interactions.js';
import { inviteUrl } from './invite-url.js';
import { toInboundMessage } from './message-handler.js';
import type { ScheduleModals } from './schedule-modal.js';
import { registerCommands } from './slash-commands.js';

const botUserSchema = z.object({ id: z.string() });

export interface DiscordGatewayDeps {
  readonly options: DiscordAdapterOptions;
  readonly rest: Pick<DiscordRest, 'api' | 'restOptions'>;
  readonly botThreads: BotThreads;
  readonly modals: ScheduleModals;
  readonly downloadFile: DiscordFileDownload;
  readonly logger: Logger;
}

/** How events reach Errand on Discord: the gateway session, or a standby that posts through REST only. */
export interface DiscordGateway {
  /** Connects the gateway (or, with a gate, joins it as a standby until it is acquired). */
  start(sink: InboundSink, surfaces?: SurfaceSink): Promise<void>;
  /** Closes the session, then gives the gate up, so two sessions never overlap. */
  stop(): Promise<void>;
  connectionState(): ConnectionState;
  /** The bot's user id: from READY once connected, else from `GET /users/@me` (a standby); null before start. */
  botId(): string | null;
  /** A member's nickname in a guild, when the gateway's cache has it. */
  nickname(guildId: string, userId: string): string | null;
}

/**
 * The discord.js gateway client, made fresh per connection (a destroyed client is not reliably
 * reusable, and a standby has none), wired to the sink: messages, interactions and the bot's thread
 * membership. Kept apart from posting, which goes through REST whether or not this is connected.
 */
export function createDiscordGateway(deps: DiscordGatewayDeps): DiscordGateway {
  const { options, botThreads, modals, downloadFile, logger } = deps;
  const { api, restOptions } = deps.rest;
  const tuning = options.tuning ?? {};
  const gate = options.gateway;
  const newClient = () =>
    new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      partials: [Partials.Channel, Partials.Message],
      rest: restOptions,
    });
  let client: Client | null = null;
  let restBotId: string | null = null;
  let started = false;
  const botId = () => client?.user?.id ?? restBotId;

  const onMessage = (sink: InboundSink, message: Message) => {
    const me = botId();
    if (!me) return;
    toInboundMessage(message, { botId: me, threads: options.threads ?? true, botThreads, downloadFile })
      .then((inbound) => (inbound ? sink.onMessage(inbound) : undefined))
      .catch((err: unknown) => logger.error({ err, messageId: message.id }, 'handling a Discord message failed'));
  };

  /** Wires a fresh gateway client to the sink, logs it in (resolving once ready) and registers the slash commands. */
  const connectGateway = async (sink: InboundSink, surfaces: SurfaceSink | undefined) => {
    const c = newClient();
    const elicitations = surfaces ? createDiscordElicitations({ surfaces, logger }) : null;
    c.on(Events.MessageCreate, (message) => onMessage(sink, message));
    c.on(Events.InteractionCreate, (interaction) => {
      handleInteraction(interaction, {
        sink,
        ...(surfaces ? { surfaces } : {}),
        logger,
        deferAfterMs: tuning.deferAfterMs,
        markThread: botThreads.mark,
        modals,
        ...(elicitations ? { elicitations } : {}),
      }).catch((err: unknown) =>
        logger.error({ err, interactionId: interaction.id }, 'answering a Discord interaction failed'),
      );
    });
    c.on(Events.ThreadMembersUpdate, (added, removed, thread) => {
      const me = botId();
      if (me && added.has(me)) botThreads.mark(thread.id);
      if (me && removed.has(me)) botThreads.unmark(thread.id);
    });
    c.on(Events.Error, (err) => logger.error({ err }, 'Discord client error'));
    c.on(Events.Warn, (message) => logger.warn({ message }, 'Discord client warning'));
    client = c;
    try {
      await connectClient(c, options.token, tuning.readyTimeoutMs ?? 30_000, options.apiUrl);
    } catch (err) {
      if (client === c) client = null;
      throw err;
    }
    const applicationId = c.application?.id ?? botId() ?? '';
    logger.info(
      { botUserId: botId(), inviteUrl: inviteUrl(applicationId) },
      'Discord connected. Add Errand to a server with the invite URL.',
    );
    await registerCommands(api, applicationId, options.guildId).catch((err: unknown) =>
      logger.error(
        { err, guildId: options.guildId ?? null },
        'registering Discord slash commands failed; mentions still work',
      ),
    );
  };

  /** Closes the gateway session (another process may open its own now); posting through REST goes on. */
  const disconnectGateway = async () => {
    const c = client;
    client = null;
    if (c) {
      logger.info('closing the Discord gateway session');
      await c.destroy();
    }
  };

  return {
    async start(sink, surfaces) {
      api.on(RESTEvents.RateLimited, (info) =>
        logger.debug({ route: info.route, retryAfter: info.retryAfter }, 'Discord rate limit: waiting'),
      );
      if (!gate) {
        await connectGateway(sink, surfaces);
        started = true;
        return;
      }
      // A standby still needs the bot's id (its own messages in history, thread membership) and a valid token.
      restBotId = (await rest('bot identity', () => api.get(Routes.user('@me')), botUserSchema)).id;
      started = true;
      await gate.join({ acquired: () => connectGateway(sink, surfaces), lost: disconnectGateway });
    },
    async stop() {
      started = false;
      // Disconnect before giving the gate up, so two sessions never overlap.
      await disconnectGateway();
      await gate?.leave();
    },
    connectionState() {
      if (!started) return { connected: false, detail: 'not started' };
      // A standby is healthy: it posts through REST and takes the gateway over when the holder goes.
      if (gate && !gate.held) return { connected: true, gateway: 'standby' };
      const held = gate ? ({ gateway: 'held' } as const) : {};
      if (!client) return { connected: false, detail: 'gateway connecting', ...held };
      // Each shard's status follows its gateway session: Connecting/Resuming after a drop, Ready again once resumed.
      const down = [...client.ws.shards.values()].find((shard) => shard.status !== Status.Ready);
      return down
        ? { connected: false, detail: `gateway ${Status[down.status]?.toLowerCase() ?? 'not ready'}`, ...held }
        : { connected: true, ...held };
    },
    botId,
    nickname: (guildId, userId) => client?.guilds.cache.get(guildId)?.members.cache.get(userId)?.nickname ?? null,
  };
}
