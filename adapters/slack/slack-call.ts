import type { z } from 'zod';

/**
 * A Web API call whose answer is validated: the adapter's paced, typed caller (slack-client.ts builds it).
 * The parts of the adapter that call Slack hold this, not the WebClient, so every call is paced and its
 * answer checked with zod in one place.
 */
export type SlackCall = <T>(method: string, args: Record<string, unknown>, schema: z.ZodType<T>) => Promise<T>;
