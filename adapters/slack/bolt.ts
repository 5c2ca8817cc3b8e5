/**
 * The Bolt classes Errand runs, loaded from the modules that define them instead of `@slack/bolt`'s
 * index, which also loads Express, the AWS Lambda receiver and their dependencies (about 120 modules,
 * 6 MB of resident memory) that Errand never uses. Bolt has no `exports` map, so these paths are
 * reachable; an upgrade that moves them fails the type check and every Slack test. Types still come from
 * `@slack/bolt` (type imports load nothing).
 */
import appModule, { LogLevel } from '@slack/bolt/dist/App.js';
import httpReceiverModule from '@slack/bolt/dist/receivers/HTTPReceiver.js';
import socketModeReceiverModule from '@slack/bolt/dist/receivers/SocketModeReceiver.js';

/**
 * The class a CommonJS module exports as `default`: node's ESM loader hands over the whole module object,
 * vitest's loader (and bundlers) the default export itself.
 */
function defaultExport<T>(module: { default: T }): T {
  return (module as { default?: T }).default ?? (module as unknown as T);
}

export const App = defaultExport(appModule);
export type App = InstanceType<typeof App>;
export const HTTPReceiver = defaultExport(httpReceiverModule);
export const SocketModeReceiver = defaultExport(socketModeReceiverModule);
export { LogLevel };
