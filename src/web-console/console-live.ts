import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebConsoleDeps } from './console-deps.js';
import { SECURITY_HEADERS } from './console-http.js';
import type { Html } from './html.js';
import type { FeedTimers } from './live-feed.js';

/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 20_000;

/** One server-sent event: each line of the HTML in a `data:` line, as the format wants. */
export function sseEvent(name: string, body: string): string {
  return `event: ${name}\n${body
    .split('\n')
    .map((l) => `data: ${l}`)
    .join('\n')}\n\n`;
}

export interface LiveStream {
  /** The feed key (one poll per key) and how to know that something changed. */
  readonly key: string;
  poll(): Promise<string>;
  /** The event's name (htmx's `sse-swap`) and the fragment to swap in. */
  readonly event: string;
  render(): Promise<Html>;
  /** Whether the session still holds (checked before each update: it ends the stream when not). */
  stillSignedIn(): Promise<boolean>;
}

/**
 * Streams a page part over server-sent events: the fragment at once, then again each time the feed says it changed
 * (renders coalesce: one in flight, at most one after it). Ends when the browser leaves or the session ends.
 */
export function streamLive(
  req: IncomingMessage,
  res: ServerResponse,
  deps: Pick<WebConsoleDeps, 'live' | 'logger'> & { timers: FeedTimers },
  stream: LiveStream,
): void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  let closed = false;
  let rendering = false;
  let again = false;
  const send = async (): Promise<void> => {
    if (closed) return;
    if (rendering) {
      again = true;
      return;
    }
    rendering = true;
    try {
      do {
        again = false;
        if (!(await stream.stillSignedIn())) {
          res.end();
          return;
        }
        const body = await stream.render();
        if (!closed) res.write(sseEvent(stream.event, body.text));
      } while (again && !closed);
    } catch (err) {
      deps.logger.warn({ err, key: stream.key }, 'a live update failed');
    } finally {
      rendering = false;
    }
  };
  const unsubscribe = deps.live.subscribe(
    stream.key,
    () => stream.poll(),
    () => void send(),
  );
  let keepAlive: unknown = null;
  const beat = () => {
    if (closed) return;
    res.write(': keep-alive\n\n');
    keepAlive = deps.timers.setTimer(beat, KEEP_ALIVE_MS);
  };
  keepAlive = deps.timers.setTimer(beat, KEEP_ALIVE_MS);
  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    if (keepAlive !== null) deps.timers.clearTimer(keepAlive);
  };
  req.on('close', close);
  res.on('close', close);
  void send();
}
