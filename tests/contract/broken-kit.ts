import type { AdapterCapabilities, AnswerStream, ChatAdapter } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CapabilityName, ChatAdapterHarness, ContractOptions, Patience } from './chat-adapter-harness.js';

/** Patience against a broken adapter: what it should do but never will is given up on sooner. */
export const BROKEN_PATIENCE: Patience = { wait: 5000, last: 750 };

/** A harness whose adapter (or whose inbound side) is broken, and how to undo what breaking it left behind. */
export interface Broken {
  readonly harness: ChatAdapterHarness;
  restore(): Promise<void>;
}

/**
 * An adapter broken in one member, and the contract check that must fail against it: the suite runs the check
 * with `breakIn(h)` and expects it to throw `fails` (the assertion or the wait that catches the fault).
 */
export interface BrokenAdapter {
  readonly check: string;
  /** What is broken, in words. */
  readonly broken: string;
  readonly fails: RegExp;
  applies?(options: ContractOptions): boolean;
  breakIn(h: ChatAdapterHarness): Broken;
}

/** `adapter` with some members replaced; every other member is the adapter's own. */
export function withMembers(adapter: ChatAdapter, members: Partial<ChatAdapter>): ChatAdapter {
  return new Proxy(adapter, {
    get(target, prop) {
      if (Object.prototype.hasOwnProperty.call(members, prop)) return members[prop as keyof ChatAdapter];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `adapter` with one capability replaced by `make(original)`. */
export function withCapability<K extends CapabilityName>(
  adapter: ChatAdapter,
  name: K,
  make: (original: NonNullable<AdapterCapabilities[K]>) => AdapterCapabilities[K],
): ChatAdapter {
  return withMembers(adapter, { capabilities: { ...adapter.capabilities, [name]: make(adapter.capabilities[name]!) } });
}

const nothingToRestore = async () => undefined;
/** The harness with a broken adapter and nothing to undo. */
export const plainly = (h: ChatAdapterHarness, adapter: ChatAdapter): Broken => ({
  harness: { ...h, adapter },
  restore: nothingToRestore,
});
/** The harness whose adapter hands the core something else than it got (`h.sink.tamper`), until restored. */
export function tampering(h: ChatAdapterHarness, tamper: NonNullable<ChatAdapterHarness['sink']['tamper']>): Broken {
  h.sink.tamper = tamper;
  return { harness: h, restore: async () => void (h.sink.tamper = null) };
}
/** The same for the surfaces. */
export function tamperingSurfaces(
  h: ChatAdapterHarness,
  tamper: NonNullable<NonNullable<ChatAdapterHarness['surfaces']>['tamper']>,
): Broken {
  h.surfaces!.tamper = tamper;
  return { harness: h, restore: async () => void (h.surfaces!.tamper = null) };
}
export const top = (c: ConversationRef): ConversationRef => ({ ...c, thread: null });
export const manyScreens = (o: ContractOptions) => o.singleScreen !== true;
export const declares = (c: CapabilityName) => (o: ContractOptions) => o.capabilities.includes(c);

/** A stream that passes every call to `inner` (its methods replaced one at a time by the broken ones). */
export function wrapStream(inner: AnswerStream): AnswerStream {
  return {
    append: (text) => inner.append(text),
    finish: (text, pieces) => inner.finish(text, pieces),
    stop: (how) => inner.stop(how),
    ...(inner.showSteps
      ? { showSteps: (steps: Parameters<NonNullable<AnswerStream['showSteps']>>[0]) => inner.showSteps!(steps) }
      : {}),
  };
}
