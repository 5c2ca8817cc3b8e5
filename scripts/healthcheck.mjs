// Docker HEALTHCHECK: exit 0 when /healthz answers 200 (or when METRICS_PORT is unset: nothing to ask), else 1.
const port = process.env.METRICS_PORT?.trim();
if (!port) process.exit(0);
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(4000) });
  process.stdout.write(`${res.status} ${await res.text()}\n`);
  process.exit(res.status === 200 ? 0 : 1);
} catch (err) {
  process.stdout.write(`healthz unreachable: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
