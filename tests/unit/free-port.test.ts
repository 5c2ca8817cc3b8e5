import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startOnFreePort } from '../support/free-port.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** An HTTP server listening on `port` of every interface, as the sign-in pages do on WEB_PORT. */
function listenOn(port: number): Promise<Server> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve(server));
  }).then(() => (servers.push(server), server));
}

describe('a server started on a port found free a moment before', () => {
  it('starts again on another port when someone took the port found between the look and the listen', async () => {
    const tried: number[] = [];
    const server = await startOnFreePort(async (port) => {
      tried.push(port);
      // Another process takes the port first, once.
      if (tried.length === 1) await listenOn(port);
      return listenOn(port);
    });
    expect(tried).toHaveLength(2);
    expect(tried[1]).not.toBe(tried[0]);
    expect(server.address()).toMatchObject({ port: tried[1] });
  });

  it('passes on any other failure at once, and EADDRINUSE after the last attempt', async () => {
    let calls = 0;
    await expect(
      startOnFreePort(async () => {
        calls++;
        throw new Error('bad config');
      }),
    ).rejects.toThrow('bad config');
    expect(calls).toBe(1);
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    await expect(startOnFreePort(async () => Promise.reject(inUse), 3)).rejects.toBe(inUse);
  });
});
