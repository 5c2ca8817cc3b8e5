import { lookup } from 'node:dns/promises';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, isIP, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROXY_PORT, PROXY_SOCKET } from './sandbox-command.js';
import type { HostUser } from './sandbox-process.js';

/**
 * The one way out of a sandbox whose `sandbox.network` lists hosts: an HTTP proxy Errand runs on a unix socket
 * bound into the sandbox (which has no network of its own). It opens a tunnel (`CONNECT host:port`) or forwards a
 * plain request (`GET http://host/…`) only to a listed host, and refuses everything else with 403.
 */
export interface EgressProxy {
  /** The socket's path on the host (bound at PROXY_SOCKET inside). */
  readonly socketPath: string;
  /** Hosts the code asked for and was refused, for the call's result. */
  readonly refused: readonly string[];
  close(): Promise<void>;
}

/** A listed host: `name` (ports 443 and 80) or `name:port` (that port only). */
interface Allowed {
  readonly host: string;
  readonly ports: readonly number[];
  readonly literal: boolean;
}

/** `sandbox.network` as the proxy compares it (lower case; the ports each entry opens). */
export function parseAllowlist(entries: readonly string[]): Allowed[] {
  return entries.map((e) => {
    const m = /^(.*?)(?::(\d+))?$/.exec(e.trim().toLowerCase())!;
    const host = m[1]!;
    return { host, ports: m[2] ? [Number(m[2])] : [443, 80], literal: isIP(host) !== 0 };
  });
}

/** Whether `host:port` is listed; the entry, or null. */
export function allowedTarget(list: readonly Allowed[], host: string, port: number): Allowed | null {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return list.find((a) => a.host === h && a.ports.includes(port)) ?? null;
}

/**
 * Addresses a listed *name* may not resolve to: loopback, link-local (cloud metadata at 169.254.169.254), the
 * unspecified address. A name is no way into Errand's own host; an operator who means a local service lists its
 * address literally.
 */
export function isForbiddenAddress(address: string): boolean {
  const a = address.toLowerCase();
  if (isIP(a) === 4) return a.startsWith('127.') || a.startsWith('169.254.') || a.startsWith('0.');
  return (
    a === '::1' || a === '::' || a.startsWith('fe80:') || a.startsWith('::ffff:127.') || a.startsWith('::ffff:169.254.')
  );
}

const HEADER_LIMIT = 16 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;

function refuse(client: Socket, status: string, why: string): void {
  client.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(why) + 1}\r\n\r\n${why}\n`,
  );
}

/** The request line's target: `CONNECT host:port` or an absolute `http://` URL; null for anything else. */
export function requestTarget(line: string): { host: string; port: number; tunnel: boolean; path: string } | null {
  const [method, target] = line.split(' ');
  if (!method || !target) return null;
  if (method.toUpperCase() === 'CONNECT') {
    const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(target);
    return m ? { host: m[1]!, port: Number(m[2]), tunnel: true, path: '' } : null;
  }
  try {
    const url = new URL(target);
    if (url.protocol !== 'http:') return null;
    return {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : 80,
      tunnel: false,
      path: `${url.pathname}${url.search}`,
    };
  } catch {
    return null;
  }
}

async function resolveFor(allowed: Allowed, host: string): Promise<string | null> {
  if (allowed.literal) return host;
  const found = await lookup(host, { all: true }).catch(() => []);
  const usable = found.filter((f) => !isForbiddenAddress(f.address));
  return usable.length > 0 && usable.length === found.length ? usable[0]!.address : null;
}

/** Starts a proxy for one call, its socket reachable by `user` (bwrap's host user) only. */
export async function startEgressProxy(hosts: readonly string[], user: HostUser | null): Promise<EgressProxy> {
  const list = parseAllowlist(hosts);
  const dir = mkdtempSync(join(tmpdir(), 'errand-egress-'));
  const socketPath = join(dir, 'proxy.sock');
  const refused: string[] = [];
  const open = new Set<Socket>();
  const track = (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = createServer((client) => {
    track(client);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > HEADER_LIMIT)
          refuse(client, '431 Request Header Fields Too Large', 'sandbox proxy: request header too large');
        return;
      }
      client.off('data', onData);
      client.pause();
      void forward(client, head, end);
    };
    client.on('data', onData);
  });
  const forward = async (client: Socket, head: Buffer, end: number) => {
    const headerText = head.subarray(0, end).toString('latin1');
    const firstLine = headerText.split('\r\n', 1)[0] ?? '';
    const target = requestTarget(firstLine);
    if (!target)
      return refuse(client, '400 Bad Request', 'sandbox proxy: only CONNECT host:port and http:// requests go out');
    const allowed = allowedTarget(list, target.host, target.port);
    const name = `${target.host}:${target.port}`;
    if (!allowed) {
      refused.push(name);
      return refuse(client, '403 Forbidden', `sandbox proxy: ${name} is not in sandbox.network`);
    }
    const address = await resolveFor(allowed, target.host);
    if (!address) {
      refused.push(name);
      return refuse(client, '403 Forbidden', `sandbox proxy: ${target.host} does not resolve to a public address`);
    }
    const upstream = createConnection({ host: address, port: target.port, timeout: CONNECT_TIMEOUT_MS });
    track(upstream);
    upstream.once('timeout', () => upstream.destroy());
    upstream.once('error', () => {
      if (!client.destroyed) refuse(client, '502 Bad Gateway', `sandbox proxy: could not reach ${name}`);
    });
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      const rest = head.subarray(end + 4);
      if (target.tunnel) client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      else
        upstream.write(
          `${headerText.replace(firstLine, firstLine.replace(/^(\S+)\s+\S+/, `$1 ${target.path}`))}\r\n\r\n`,
        );
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chownSync(socketPath, user.uid, user.gid);
  }
  return {
    socketPath,
    refused,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs inside the sandbox (Python, one thread): 127.0.0.1:PROXY_PORT → the proxy's unix socket, both ways. */
export const FORWARDER = `import asyncio, sys
SOCK = '${PROXY_SOCKET}'
async def pipe(r, w):
    try:
        while True:
            data = await r.read(65536)
            if not data:
                break
            w.write(data)
            await w.drain()
        if w.can_write_eof():
            w.write_eof()
    except Exception:
        w.close()
async def handle(cr, cw):
    try:
        ur, uw = await asyncio.open_unix_connection(SOCK)
    except Exception:
        cw.close()
        return
    await asyncio.gather(pipe(cr, uw), pipe(ur, cw))
    uw.close()
    cw.close()
async def main():
    server = await asyncio.start_server(handle, '127.0.0.1', ${PROXY_PORT})
    print('ready', flush=True)
    async with server:
        await server.serve_forever()
asyncio.run(main())
`;
