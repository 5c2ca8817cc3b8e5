import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeepAliveFetch } from '../../src/net/keep-alive-fetch.js';

interface Served {
  url: string;
  connections: number;
  requests: { method: string; headers: IncomingMessage['headers']; body: string; socket: Socket }[];
  server: Server;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse, served: Served) => void): Promise<Served> {
  const served = { url: '', connections: 0, requests: [] } as unknown as Served;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      served.requests.push({
        method: req.method ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        socket: req.socket,
      });
      handle(req, res, served);
    });
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', () => served.connections++);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  served.server = server;
  return served;
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));

describe('the kept-alive fetch', () => {
  it('sends the method, headers and body it is given and reads status, headers and JSON back', async () => {
    const served = await serve((_req, res) =>
      json(res, 201, { ok: 'yes', text: 'héllo' }, { 'x-request-id': 'req_1', 'retry-after': '3' }),
    );
    const transport = createKeepAliveFetch();
    const headers = new Headers({ 'content-type': 'application/json', authorization: 'Bearer k' });
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'héllo ✓' }] });
    const response = await transport(`${served.url}/v1/chat/completions`, { method: 'POST', headers, body });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('X-Request-Id')).toBe('req_1');
    expect(response.headers.get('retry-after')).toBe('3');
    expect(response.headers.get('missing')).toBeNull();
    expect([...response.headers.entries()].find(([k]) => k === 'content-type')?.[1]).toBe('application/json');
    expect(await response.json()).toEqual({ ok: 'yes', text: 'héllo' });
    const [request] = served.requests;
    expect(request).toMatchObject({ method: 'POST', body });
    expect(request!.headers.authorization).toBe('Bearer k');
    expect(Number(request!.headers['content-length'])).toBe(Buffer.byteLength(body));
  });

  it('keeps the connection for the next request', async () => {
    const served = await serve((_req, res) => json(res, 200, { n: served.requests.length }));
    const transport = createKeepAliveFetch();
    for (let i = 1; i <= 3; i++)
      expect(await (await transport(`${served.url}/x`, { method: 'POST', body: '{}' })).json()).toEqual({ n: i });
    expect(served.connections).toBe(1);
  });

  it('tries once more on a new connection when the server closed the kept-alive one as the request left', async () => {
    const seen = new Set<Socket>();
    const served = await serve((req, res) => {
      // The second request on a connection finds it closed: what a server that timed the connection out does.
      if (seen.has(req.socket)) return req.socket.destroy();
      seen.add(req.socket);
      json(res, 200, { n: served.requests.length });
    });
    const transport = createKeepAliveFetch();
    expect(await (await transport(`${served.url}/x`, { method: 'POST', body: '{}' })).json()).toEqual({ n: 1 });
    expect(await (await transport(`${served.url}/x`, { method: 'POST', body: '{}' })).json()).toEqual({ n: 3 });
    expect(served.connections).toBe(2);
  });

  it('gives up with the error when a new connection fails too', async () => {
    const served = await serve((req) => req.socket.destroy());
    const transport = createKeepAliveFetch();
    await expect(transport(`${served.url}/x`, { method: 'POST', body: '{}' })).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    expect(served.requests).toHaveLength(1);
  });

  it('says why it could not connect', async () => {
    const served = await serve(() => undefined);
    servers.splice(0);
    served.server.closeAllConnections();
    await new Promise<void>((r) => served.server.close(() => r()));
    await expect(createKeepAliveFetch()(`${served.url}/x`, { method: 'GET' })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('rejects with an AbortError when the signal was aborted before the request left, and sends nothing', async () => {
    const served = await serve((_req, res) => json(res, 200, {}));
    const controller = new AbortController();
    controller.abort();
    await expect(
      createKeepAliveFetch()(`${served.url}/x`, { method: 'POST', body: '{}', signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(served.requests).toHaveLength(0);
  });

  it('ends a streamed body with an AbortError when the signal is aborted while it streams', async () => {
    const served = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
    });
    const controller = new AbortController();
    const response = await createKeepAliveFetch()(`${served.url}/x`, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    const chunks: string[] = [];
    const read = (async () => {
      for await (const chunk of response.body as unknown as AsyncIterable<Buffer>) {
        chunks.push(chunk.toString('utf8'));
        controller.abort();
      }
    })();
    await expect(read).rejects.toMatchObject({ name: 'AbortError' });
    expect(chunks).toEqual(['data: one\n\n']);
  });

  it('hands a body it does not send itself (a stream) to the fallback fetch', async () => {
    const calls: unknown[] = [];
    const fallback = (async (input: unknown) => {
      calls.push(input);
      return new Response('fallback');
    }) as typeof fetch;
    const stream = new ReadableStream({ start: (c) => c.close() });
    const response = await createKeepAliveFetch({ fallback })('http://127.0.0.1:9/x', {
      method: 'POST',
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(await response.text()).toBe('fallback');
    expect(calls).toEqual(['http://127.0.0.1:9/x']);
  });

  it('reads the whole body first when asked, so a response dropped unread (a 429) leaves its connection free for the next request', async () => {
    const served = await serve((_req, res) =>
      served.requests.length === 1
        ? json(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '1' })
        : json(res, 200, { ok: true, n: served.requests.length }),
    );
    const whole = createKeepAliveFetch({ readWholeBody: true });
    const limited = await whole(`${served.url}/api/chat.postMessage`, { method: 'POST', body: 'a=1' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    // Dropped unread, as Slack's WebClient does with a 429; the next request still goes on the same connection.
    const next = await whole(`${served.url}/api/chat.postMessage`, { method: 'POST', body: 'a=2' });
    expect(await next.json()).toEqual({ ok: true, n: 2 });
    expect(served.connections).toBe(1);
    const bytes = new Uint8Array(await next.arrayBuffer());
    expect(JSON.parse(Buffer.from(bytes).toString('utf8'))).toEqual({ ok: true, n: 2 });
    const chunks: Buffer[] = [];
    for await (const chunk of next.body as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('{"ok":true,"n":2}');
  });

  it('fails a whole-body read with the AbortError when the signal is aborted while the body arrives', async () => {
    const controller = new AbortController();
    const served = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
      setTimeout(() => controller.abort(), 20);
    });
    await expect(
      createKeepAliveFetch({ readWholeBody: true })(`${served.url}/x`, {
        method: 'POST',
        body: '{}',
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(served.requests).toHaveLength(1);
  });
});
