import { pino, type Logger, type DestinationStream } from 'pino';

/** Paths pino blanks out wherever they appear, so a token never reaches a log line. */
export const REDACT_PATHS = [
  'token',
  'apiKey',
  'appToken',
  'botToken',
  'signingSecret',
  'authorization',
  '*.token',
  '*.apiKey',
  '*.appToken',
  '*.botToken',
  '*.signingSecret',
  '*.authorization',
  '*.headers.authorization',
  '*.OPENAI_API_KEY',
  '*.SLACK_BOT_TOKEN',
  '*.SLACK_APP_TOKEN',
  '*.SLACK_SIGNING_SECRET',
  '*.DISCORD_TOKEN',
  '*.ERRAND_SECRET_KEY',
  '*.access_token',
  '*.refresh_token',
  '*.client_secret',
  '*.clientSecret',
  '*.code_verifier',
  'OPENAI_API_KEY',
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'DISCORD_TOKEN',
  'ERRAND_SECRET_KEY',
];

const SECRET_PATTERN = /\b(xox[abposr]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|sk-[A-Za-z0-9_-]{8,})\b/g;

/** Masks token-shaped substrings in free text (error messages can echo a token back). */
export function maskSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, (m) => `${m.slice(0, 5)}…[redacted]`);
}

export type { Logger };

/** Creates the process logger; `destination` lets the console adapter send logs to a file. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: {
        logMethod(args, method) {
          const masked = args.map((a) => (typeof a === 'string' ? maskSecrets(a) : a)) as typeof args;
          method.apply(this, masked);
        },
      },
      serializers: {
        err: (err: unknown) => {
          const s = pino.stdSerializers.err(err as Error);
          return { ...s, message: maskSecrets(String(s.message)), stack: s.stack ? maskSecrets(s.stack) : s.stack };
        },
      },
    },
    destination,
  );
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
