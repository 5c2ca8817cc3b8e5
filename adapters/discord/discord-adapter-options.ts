import type { GatewayGate } from '../../src/chat/gateway-gate.js';
import type { PlatformTraffic } from '../../src/chat/platform-traffic.js';
import type { PostPacer } from '../../src/chat/post-pacer.js';
import type { Clock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { AdapterError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';

/** Timings that production leaves at Discord's values and tests shorten. */
export interface DiscordTuning {
  messageLimit?: { count: number; windowMs: number };
  typingIntervalMs?: number;
  /** Delay before "typing…" first shows (default 400 ms; quicker answers show none). */
  typingDelayMs?: number;
  workingNoticeDelayMs?: number;
  deferAfterMs?: number;
  readyTimeoutMs?: number;
  /** REST retries on 5xx/network errors (429s are always waited out by discord.js). */
  restRetries?: number;
  /** Least time between two edits of a streamed answer (default 1.5 s). */
  streamIntervalMs?: number;
  /** The largest file posted, in bytes (default 10 MiB, what every server takes). */
  maxFileBytes?: number;
}

/** Everything the Discord adapter is built from: the token and endpoints from configuration, plus what tests inject. */
export interface DiscordAdapterOptions {
  token: string;
  /** REST base (DISCORD_API_URL), e.g. `http://127.0.0.1:8080/api`; the gateway URL follows from it. */
  apiUrl?: string;
  /** DISCORD_THREADS: open a thread per mention (default true). */
  threads?: boolean;
  /** DISCORD_GUILD_ID: register slash commands in this guild only (instantly available). */
  guildId?: string;
  logger?: Logger;
  tuning?: DiscordTuning;
  /** Told about every accepted post and every 429 (metrics). */
  traffic?: PlatformTraffic;
  /** Timers for streamed answers (default: the system clock). */
  clock?: Clock;
  /**
   * Several processes as one bot (PostgreSQL): only the gate's holder connects the gateway (and so hears
   * messages and interactions, and registers the slash commands); every process posts through REST.
   * Absent: this process connects the gateway at start, as the only one.
   */
  gateway?: GatewayGate;
  /** Pacing shared with other processes posting as this bot; absent: this process paces only its own posts. */
  pacer?: PostPacer;
}

/** The adapter options from Errand's configuration (DISCORD_TOKEN must be set). */
export function discordOptionsFromConfig(config: Config, logger?: Logger): DiscordAdapterOptions {
  if (!config.DISCORD_TOKEN) throw new AdapterError('DISCORD_TOKEN is not set');
  return {
    token: config.DISCORD_TOKEN,
    apiUrl: config.DISCORD_API_URL,
    threads: config.DISCORD_THREADS,
    guildId: config.DISCORD_GUILD_ID,
    ...(logger ? { logger } : {}),
  };
}
