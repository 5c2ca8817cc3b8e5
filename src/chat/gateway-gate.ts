/** What an adapter does when its process takes or loses the right to hold the platform's gateway connection. */
export interface GatewayTurn {
  /** This process now holds the gateway: connect it. A rejection is logged; the process keeps the turn. */
  acquired(): Promise<void>;
  /** Another process may hold the gateway now: disconnect at once, without waiting for anything else. */
  lost(): Promise<void>;
}

/**
 * Lets processes that share one bot identity agree which of them holds a gateway connection that
 * only one may hold (Discord's: two sessions would deliver every event twice). The others stay on
 * standby, still posting through REST, and one of them takes over when the holder dies. Without a
 * gate an adapter connects its gateway itself, as a single process does.
 */
export interface GatewayGate {
  /**
   * Starts competing for the gateway; resolves after the first attempt, and when that attempt won,
   * after `turn.acquired()` settled. Turns never overlap: `lost` waits for a running `acquired`.
   */
  join(turn: GatewayTurn): Promise<void>;
  /** True while this process holds the gateway. */
  readonly held: boolean;
  /** Stops competing and gives the gateway up; `turn.lost` is not called (the adapter is stopping). */
  leave(): Promise<void>;
}
