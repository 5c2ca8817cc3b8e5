import type { PresenceCapabilities } from './adapter-presence.js';
import type { DeliveryCapabilities, PrivateAnswerDelivery } from './delivery.js';
import type { AudienceLookup, ReadCapabilities } from './platform-reads.js';

/**
 * Everything only some platforms can do, as an adapter declares it: what it delivers (held by the outbox), what
 * it shows (held by the presence port) and what it reads. Each holder sees only its own part, so the core asks
 * "can you?" once (`capabilities.stream?.open(…)`) and the contract suite drives every capability an adapter declares.
 */
export type AdapterCapabilities = DeliveryCapabilities & PresenceCapabilities & ReadCapabilities;

/** Answers built on one person's private material, as an adapter offers them: who reads, and showing one privately. */
export type PrivateAnswerCapability = PrivateAnswerDelivery & AudienceLookup;
