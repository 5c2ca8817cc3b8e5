import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConnectionState } from '../../src/chat/chat-adapter.js';
import { AdapterError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { ackAfterHandling } from './ack-after-handling.js';
import { App, HTTPReceiver, SocketModeReceiver } from './bolt.js';
import type { BotIdentity } from './event-handlers.js';
import type { SlackAdapterOptions } from './slack-adapter-options.js';
import type { SlackClient } from './slack-client.js';

function portOf(server: Server | null): number | null {
  const address = server?.address();
  return address && typeof address === 'object' ? (address as AddressInfo).port : null;
}

export interface SlackReceiverDeps {
  readonly options: SlackAdapterOptions;
  readonly client: Pick<SlackClient, 'clientOptions' | 'boltLog' | 'slackApiUrl'>;
  /** Puts Errand's listeners on the app just built. */
  readonly register: (app: App) => void;
  readonly logger: Logger;
}

/** How events reach Errand: the Bolt app, its receiver and the connection state they report. */
export interface SlackReceiver {
  /** Builds the app for this bot and connects Socket Mode or opens the HTTP receiver. */
  start(identity: BotIdentity): Promise<void>;
  /** Stops receiving; what is being handled finishes first. */
  stop(): Promise<void>;
  connectionState(): ConnectionState;
  /** The HTTP receiver's port once started in `http` mode, else null. */
  httpPort(): number | null;
}

/**
 * Socket Mode or the HTTP receiver behind one Bolt app. Message events are acknowledged once
 * stored, not before (see ack-after-handling.ts); the socket reports its own reconnections.
 */
export function createSlackReceiver(deps: SlackReceiverDeps): SlackReceiver {
  const { options, logger } = deps;
  const { clientOptions, boltLog, slackApiUrl } = deps.client;
  const tuning = options.tuning ?? {};
  const mode = options.mode ?? 'socket';
  let app: App | null = null;
  let server: Server | null = null;
  let connection: ConnectionState = { connected: false, detail: 'not started' };

  const buildApp = (identity: BotIdentity): App => {
    const boltReceiver =
      mode === 'http'
        ? new HTTPReceiver({ signingSecret: options.signingSecret ?? '', endpoints: '/slack/events', logger: boltLog })
        : new SocketModeReceiver({
            appToken: options.appToken ?? '',
            logger: boltLog,
            // apps.connections.open goes to the same API base; its own client keeps the SDK's 429 handling.
            installerOptions: { clientOptions: slackApiUrl ? { slackApiUrl } : {} },
            ...(tuning.socketPingTimeoutMs ? { clientPingTimeout: tuning.socketPingTimeoutMs } : {}),
          });
    const receiver = ackAfterHandling(boltReceiver, { deadlineMs: tuning.eventAckDeadlineMs ?? 2500, logger });
    const built = new App({
      token: options.botToken,
      botId: identity.botId,
      botUserId: identity.userId,
      receiver,
      logger: boltLog,
      clientOptions,
    });
    deps.register(built);
    if (boltReceiver instanceof SocketModeReceiver) {
      // The socket reconnects by itself; between `close` and the next `connected` nothing arrives.
      const socket = boltReceiver.client;
      socket.on('connected', () => (connection = { connected: true }));
      for (const state of ['close', 'reconnecting', 'disconnecting', 'disconnected'] as const) {
        socket.on(
          state,
          () =>
            (connection = {
              connected: false,
              detail: state === 'close' ? 'socket closed, reconnecting' : `socket ${state}`,
            }),
        );
      }
    }
    return built;
  };

  return {
    async start(identity) {
      app = buildApp(identity);
      try {
        if (mode === 'http') {
          server = (await app.start({
            port: options.port ?? 3000,
            ...(options.host ? { host: options.host } : {}),
          })) as Server;
          connection = { connected: true, detail: `receiving events on port ${portOf(server)}` };
        } else await app.start();
      } catch (err) {
        const hint =
          mode === 'http'
            ? `Is SLACK_PORT ${options.port ?? 3000} free?`
            : 'Check SLACK_APP_TOKEN (an xapp- token with connections:write) and that Socket Mode is enabled for the app.';
        throw new AdapterError(
          `Slack ${mode === 'http' ? 'HTTP receiver' : 'Socket Mode'} failed to start: ${err instanceof Error ? err.message : String(err)}. ${hint}`,
          { cause: err },
        );
      }
    },
    async stop() {
      const running = app;
      const listening = server;
      app = null;
      server = null;
      if (!running) return;
      const stopped = running.stop();
      // A delivery answered while stopping leaves its keep-alive connection open, and Node then waits out
      // the receiver's keep-alive timeout (5 s) before close() resolves; nothing more is read on it.
      listening?.closeIdleConnections();
      const idle = setInterval(() => listening?.closeIdleConnections(), 50);
      try {
        await stopped;
      } finally {
        clearInterval(idle);
      }
      // After the socket's own disconnect events, which would otherwise have the last word.
      connection = { connected: false, detail: 'stopped' };
    },
    connectionState: () => connection,
    httpPort: () => portOf(server),
  };
}
