/**
 * Reads the environment the container files give Errand, for tests on a machine without Docker.
 * Only the shapes this repository's files use are read: a compose service's `environment:` mapping
 * and `ports:` entries (commented-out ones too: they are the documented way to publish), the
 * Dockerfile's `ENV` lines in the final stage, and `KEY=value` lines of an env file.
 */

/** The lines of one service's block in a compose file (indented under `services:`). */
function serviceBlock(compose: string, service: string): string[] {
  const lines = compose.split('\n');
  const start = lines.findIndex((l) => l === `  ${service}:`);
  if (start < 0) throw new Error(`no service "${service}" in the compose file`);
  const end = lines.findIndex((l, i) => i > start && /^ {0,2}\S/.test(l) && !/^\s*#/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

const unquote = (v: string) =>
  v
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .replace(/^'(.*)'$/, '$1');

/** A compose service's `environment:` mapping (`KEY: value` form). */
export function composeEnvironment(compose: string, service: string): Record<string, string> {
  const block = serviceBlock(compose, service);
  const start = block.findIndex((l) => l === '    environment:');
  if (start < 0) return {};
  const env: Record<string, string> = {};
  for (const line of block.slice(start + 1)) {
    if (/^\s*#/.test(line) || line.trim() === '') continue;
    const m = /^ {6}([A-Z][A-Z0-9_]*):\s*(.*)$/.exec(line);
    if (!m) break;
    env[m[1]!] = unquote(m[2]!);
  }
  return env;
}

/** The container ports a service publishes or offers to publish (`- "host:container"` under `ports:`, commented or not). */
export function composeContainerPorts(compose: string, service: string): number[] {
  const block = serviceBlock(compose, service);
  const start = block.findIndex((l) => /^\s*#?\s*ports:/.test(l));
  if (start < 0) return [];
  const ports: number[] = [];
  for (const line of block.slice(start + 1)) {
    const m = /^\s*#?\s*-\s*"?(?:[\d.]+:)?\d+:(\d+)"?/.exec(line);
    if (!m) break;
    ports.push(Number(m[1]));
  }
  return ports;
}

/** The `ENV` values of a Dockerfile's last stage (`ENV A=1 \` continuation lines joined). */
export function dockerfileEnv(dockerfile: string): Record<string, string> {
  const joined = dockerfile.replace(/\\\n/g, ' ');
  const stages = joined.split(/^FROM\s/m);
  const env: Record<string, string> = {};
  for (const line of stages.at(-1)!.split('\n')) {
    const m = /^ENV\s+(.*)$/.exec(line);
    if (!m) continue;
    for (const pair of m[1]!.matchAll(/([A-Z][A-Z0-9_]*)=("[^"]*"|\S*)/g)) env[pair[1]!] = unquote(pair[2]!);
  }
  return env;
}

/** The `KEY=value` lines of an env file (as compose's `env_file` reads them). */
export function envFileValues(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)) env[m[1]!] = unquote(m[2]!);
  return env;
}
