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
    "shown failing on the in-memory adapter, whose filter the harness can turn off (`hearBots`); on Slack, Discord and the console the filter sits inside the adapter's event handling, where no wrapper reaches: a wrapper cannot make the adapter hand over what it dropped, and the fakes' bot posts are what the check itself sends",
};
