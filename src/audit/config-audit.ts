import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { z } from 'zod';
import type { AuditLog } from './audit-log.js';
import type { AuditStore } from './audit-store.js';

const previous = z.object({ detail: z.object({ digests: z.record(z.string(), z.string()) }) });

/** sha256 of each top-level key's canonical JSON: what tells one configuration from another without keeping it (it may hold secrets). */
export function settingDigests(settings: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    out[key] = createHash('sha256')
      .update(canonicalize(JSON.parse(JSON.stringify(value))) ?? '')
      .digest('hex');
  }
  return out;
}

/**
 * At start-up: when the configuration file's settings differ from those the last `config` entry recorded (or none
 * was ever recorded), records which keys changed. Only key names and digests go in the log, never values.
 */
export async function recordConfigurationChange(
  store: Pick<AuditStore, 'page'>,
  log: AuditLog,
  settings: Readonly<Record<string, unknown>>,
): Promise<string[]> {
  const digests = settingDigests(settings);
  const [last] = await store.page({ kind: 'config' }, null, 1);
  const parsed = last ? previous.safeParse(JSON.parse(last.entry)) : null;
  const before = parsed?.success ? parsed.data.detail.digests : {};
  const changed = [...new Set([...Object.keys(digests), ...Object.keys(before)])]
    .filter((k) => digests[k] !== before[k])
    .sort();
  if (changed.length > 0) await log.record('config', null, null, { changed, digests, first: last === undefined });
  return changed;
}
