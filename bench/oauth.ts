import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { closeDatabase, openDatabase } from '../src/db/client.js';
import { silentLogger } from '../src/logger.js';
import { createOAuthConnections } from '../src/sign-in/mcp/oauth-connections.js';
import { sealContext } from '../src/sign-in/mcp/sealed-records.js';
import { createSecretBox } from '../src/secrets/secret-box.js';
import { createSqliteStore } from '../src/composition/sqlite-store.js';
import type { Benchmark } from './benchmark.js';

const PEOPLE = 10_000;
const LOOKUPS = 50_000;
const NOW = Date.UTC(2026, 0, 5, 9, 0, 0);
const clock = { now: () => NOW, setTimer: () => null, clearTimer: () => {} };

/**
 * What a tool call of an OAuth server adds before it is sent: the principal's token looked up in a database
 * of 10 000 people's connections (one primary-key read), opened with AES-256-GCM and parsed, on the
 * embedded SQLite file. Tokens are fresh, so no request leaves the process.
 */
export const benchmark: Benchmark = {
  name: 'oauth',
  figures: ['oauth_token_lookup_us'],
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-oauth-'));
    const db = openDatabase(join(dir, 'errand.db'));
    try {
      const box = createSecretBox(randomBytes(32));
      const store = createSqliteStore(db, clock);
      const ins = db.$client.prepare(
        "insert into mcp_connections (principal, server, tokens, scopes, account, expires_at, version, connected_at, updated_at) values (?, 'linear', ?, '[\"read\"]', null, ?, 1, ?, ?)",
      );
      db.$client.transaction(() => {
        for (let i = 0; i < PEOPLE; i++) {
          const principal = `slack:U${i}`;
          const tokens = {
            access_token: randomBytes(24).toString('base64url'),
            token_type: 'Bearer',
            refresh_token: randomBytes(24).toString('base64url'),
            expires_in: 3600,
          };
          ins.run(
            principal,
            box.seal(JSON.stringify(tokens), sealContext.tokens(principal, 'linear')),
            NOW + 3600_000,
            NOW,
            NOW,
          );
        }
      })();
      const connections = createOAuthConnections({
        store: store.connections,
        box,
        clock,
        publicUrl: 'https://errand.example.com',
        servers: [
          {
            name: 'linear',
            url: 'http://127.0.0.1:9/mcp',
            settings: { scopes: null, clientId: null, clientSecret: null },
          },
        ],
        logger: silentLogger(),
      });
      for (let i = 0; i < 2_000; i++) await connections.tokenFor(`slack:U${i % PEOPLE}`, 'linear');
      const times: number[] = [];
      const start = performance.now();
      for (let i = 0; i < LOOKUPS; i++) {
        const t0 = performance.now();
        const outcome = await connections.tokenFor(`slack:U${(i * 7919) % PEOPLE}`, 'linear');
        times.push(performance.now() - t0);
        if (outcome.kind !== 'token') throw new Error(`expected a token, got ${outcome.kind}`);
      }
      const mean = ((performance.now() - start) * 1000) / LOOKUPS;
      times.sort((a, b) => a - b);
      const p99 = times[Math.floor(times.length * 0.99)]! * 1000;
      return [
        {
          name: 'oauth_token_lookup_us',
          value: mean,
          unit: 'us',
          detail: `p99 ${p99.toFixed(1)} us over ${LOOKUPS} lookups among ${PEOPLE} people's connections (SQLite file, decryption included); target < 200 us`,
        },
      ];
    } finally {
      closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
