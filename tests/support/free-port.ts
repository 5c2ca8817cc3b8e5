import { connect, createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (for servers that cannot listen on port 0 themselves). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Whether something accepts TCP connections on the port on 127.0.0.1 now (a started process's receiver is up). */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether a listen failed because the port was taken. */
export function addressInUse(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'EADDRINUSE';
}

/**
 * Starts something that must listen on a port named before it starts (WEB_PORT, which PUBLIC_URL names too), again
 * on another free port when the one found was taken meanwhile: any process on the machine may take a port between
 * freePort() and the listen (a whole-suite run once failed with "listen EADDRINUSE" on WEB_PORT). `start` must leave
 * nothing running when it throws.
 */
export async function startOnFreePort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (err) {
      if (attempt >= attempts || !addressInUse(err)) throw err;
    }
  }
}
