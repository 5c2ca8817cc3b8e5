import type { TestProject } from 'vitest/node';
import { errandBuild } from './errand-build.js';

/** Vitest globalSetup: builds Errand once for every test that starts it as a process (tests/support/errand-build.ts). */
export default async function setup(project: TestProject): Promise<() => void> {
  const build = await errandBuild();
  project.provide('errandMain', build.main);
  return build.remove;
}
