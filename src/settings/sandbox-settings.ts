import { z } from 'zod';

/**
 * A host the sandbox may reach when `network` lists it: a DNS name or an IPv4 address, optionally with a
 * port (`pypi.org`, `files.pythonhosted.org:443`, `10.0.0.5:8080`). No schemes, paths or wildcards: the proxy
 * compares the CONNECT target with this list exactly.
 */
const networkHost = z
  .string()
  .trim()
  .regex(
    /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:\d{1,5})?$/,
    'expected a host name or address with an optional port, e.g. "pypi.org" or "10.0.0.5:8080" (no scheme, path or wildcard)',
  );

/**
 * `run_code`'s sandbox (see README "Running code"). Every key has a default, so `{}` (or no key at all) gives
 * the safe set-up: no network, 60 s per call by default, 512 MB, 100 MB per workspace, kept 7 days idle.
 */
export const sandboxSettingsSchema = z.strictObject({
  /** false: `run_code` is not offered, whatever the machine has. */
  enabled: z.boolean().default(true),
  /** Hosts the code may reach through Errand's proxy; empty: no network at all. */
  network: z
    .array(networkHost)
    .refine((l) => new Set(l).size === l.length, 'lists a host twice')
    .default([]),
  /** `auto`: ask before a call only when `network` lists hosts; `always`: ask before every call; `never`: never ask. */
  approval: z.enum(['auto', 'always', 'never'], { message: 'expected "auto", "always" or "never"' }).default('auto'),
  /** The longest one call may run (its `timeout_seconds` is capped here; default per call 60). */
  maxSeconds: z
    .number()
    .int('expected a whole number of seconds')
    .min(1, 'expected at least 1 second')
    .max(3600, 'expected at most 3600 seconds')
    .default(300),
  /** Memory of one call's processes together. */
  memoryMb: z
    .number()
    .int('expected a whole number of megabytes')
    .min(32, 'expected at least 32 MB')
    .max(65_536, 'expected at most 65536 MB')
    .default(512),
  /** Most processes one call may have at once (a fork bomb stops here). */
  maxProcesses: z
    .number()
    .int('expected a whole number')
    .min(4, 'expected at least 4')
    .max(4096, 'expected at most 4096')
    .default(64),
  /** Size of one conversation's workspace (its files, kept between calls). */
  workspaceMb: z
    .number()
    .int('expected a whole number of megabytes')
    .min(1, 'expected at least 1 MB')
    .max(10_240, 'expected at most 10240 MB')
    .default(100),
  /** Days after its last use that a workspace is deleted. */
  retentionDays: z
    .number()
    .int('expected a whole number of days')
    .min(1, 'expected at least 1 day')
    .max(3650, 'expected at most 3650 days')
    .default(7),
});

export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;
