/** How the code sandbox stands, in the words the Overview shows. */
export type SandboxState =
  { readonly configured: false } | { readonly configured: true; readonly healthy: boolean; readonly summary: string };

/**
 * What the web console asks of the sandbox (DESIGN.md "Running code in a sandbox"). The sandbox implements it where
 * it is wired; until then the console shows NO_SANDBOX.
 */
export interface SandboxStatus {
  state(): SandboxState | Promise<SandboxState>;
}

/** No sandbox wired: the Overview says "not configured". */
export const NO_SANDBOX: SandboxStatus = { state: () => ({ configured: false }) };
