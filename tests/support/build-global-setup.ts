import type { TestProject } from 'vitest/node';
import { errandBuild } from './errand-build.js';

/** Vitest globalSetup: builds Errand and the stdio MCP fixture once for every test that starts them as processes (tests/support/errand-build.ts). */
export default async function setup(project: TestProject): Promise<() => void> {
  const build = await errandBuild();
  project.provide('errandMain', build.main);
  project.provide('stdioFixtureMain', build.stdioFixture);
  return build.remove;
}
