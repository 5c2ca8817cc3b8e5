/**
 * What an adapter reports about its outbound traffic (for `/metrics`). Adapters receive it in
 * their options, so they count posts and 429s without knowing how the numbers are kept.
 */
export interface PlatformTraffic {
  /** A message was accepted by the platform (each part of a split text counts). */
  posted(): void;
  /** The platform answered with HTTP 429 (the call is retried after the wait it asked for). */
  rateLimited(): void;
}
