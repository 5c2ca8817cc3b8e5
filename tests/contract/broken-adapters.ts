import { BROKEN_CAPABILITIES } from './broken-capabilities.js';
import { BROKEN_CORE } from './broken-core.js';
import type { BrokenAdapter } from './broken-kit.js';

export { BROKEN_PATIENCE, type Broken, type BrokenAdapter } from './broken-kit.js';

/**
 * Every broken adapter of the suite, each with the check that must fail against it; those whose check an
 * adapter does not have (or that `applies` rules out) are left out.
 */
export const BROKEN_ADAPTERS: readonly BrokenAdapter[] = [...BROKEN_CORE, ...BROKEN_CAPABILITIES];

/** The checks no broken adapter is run against, and why. */
export const NOT_BROKEN: Readonly<Record<string, string>> = {
  declares: 'compares declarations with the options; nothing is driven',
  'bot-echo':
    "a broken echo filter hands the core posts it should drop: the sink cannot be made to receive what the adapter never handed it, and the fakes' bot posts are what the check itself sends",
};
