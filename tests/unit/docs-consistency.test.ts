import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES } from '../../src/config.js';

const root = join(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');

describe('documentation stays current', () => {
  it('.env.example lists every environment variable the config reads, and no other', () => {
    const listed = [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it("the README's configuration table has a row for every variable", () => {
    const readme = read('README.md');
    const missing = ENV_VARIABLES.filter((v) => !readme.includes(`| \`${v}\` |`));
    expect(missing).toEqual([]);
  });

  it('the Slack manifest declares every slash command the README documents', () => {
    const manifest = read('adapters/slack/manifest.yaml');
    for (const cmd of ['/tasks', '/stop', '/schedules', '/usage', '/help']) expect(manifest).toContain(`command: ${cmd}`);
  });
});
