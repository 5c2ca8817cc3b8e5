import { z } from 'zod';
import { skillsSchema } from './skills-settings.js';

const SLACK_ID = /^slack:[A-Z0-9]{2,30}$/;
const DISCORD_ID = /^discord:\d{5,25}$/;
const DISCORD_ROLE = /^discord:role:\d{5,25}$/;
const CONSOLE_ID = /^console:[A-Za-z0-9_-]+$/;

const principal = z
  .string()
  .refine((v) => SLACK_ID.test(v) || DISCORD_ID.test(v) || DISCORD_ROLE.test(v) || CONSOLE_ID.test(v), {
    message: 'expected "slack:U…", "discord:<user id>" or "discord:role:<role id>" (e.g. "slack:U0123ABCD")',
  });
const channel = z.string().refine((v) => SLACK_ID.test(v) || DISCORD_ID.test(v) || CONSOLE_ID.test(v), {
  message: 'expected "slack:C…" or "discord:<channel id>" (e.g. "slack:C0123ABCD")',
});
const uniqueList = <T extends z.ZodType<string>>(item: T) =>
  z.array(item).refine((l) => new Set(l).size === l.length, 'lists an id twice');

/** Who may use Errand and where; every key absent means today's open behaviour. */
export const accessSchema = z.strictObject({
  /** People and Discord roles allowed; absent: everyone. */
  users: uniqueList(principal).optional(),
  /** Channels where Errand answers; absent: every channel it is in (DMs follow `directMessages`). */
  channels: uniqueList(channel).optional(),
  /** May do everything: any channel, decide any approval, stop any run, see everyone's usage. */
  admins: uniqueList(principal).default([]),
  directMessages: z
    .enum(['open', 'allowlist', 'off'], { message: 'expected "open", "allowlist" or "off"' })
    .default('open'),
  /** Who may create schedules that post into a channel. */
  schedules: z.enum(['everyone', 'admins'], { message: 'expected "everyone" or "admins"' }).default('everyone'),
});

const tokens = z.number().int('expected a whole number of tokens').positive('expected a positive number of tokens');

const dollars = z.number().positive('expected a positive number of dollars (e.g. 0.5)').finite();

/**
 * Model spending caps, counted from the model's reported usage: tokens (prompt + completion), and dollars at
 * the `pricing` of each model (a model without a price costs nothing here).
 */
export const limitsSchema = z.strictObject({
  tokensPerRun: tokens.optional(),
  tokensPerUserPerDay: tokens.optional(),
  tokensPerDay: tokens.optional(),
  usdPerRun: dollars.optional(),
  usdPerUserPerDay: dollars.optional(),
  usdPerDay: dollars.optional(),
});

const perMTok = z.number().nonnegative('expected dollars per million tokens, 0 or more').finite();

/**
 * What each model costs, in dollars per million tokens, keyed by the model name as requests ask for it
 * (`OPENAI_MODEL`, a channel's `model`). Cached input is billed at `cachedInputPerMTok` when the endpoint
 * reports it (`usage.prompt_tokens_details.cached_tokens`), else at the input price.
 */
export const pricingSchema = z.record(
  z.string().trim().min(1, 'a model name must not be empty'),
  z.strictObject({
    inputPerMTok: perMTok,
    outputPerMTok: perMTok,
    cachedInputPerMTok: perMTok.optional(),
  }),
);

/** Per-channel settings, keyed like `slack:C…` / `discord:<channel id>`. */
export const channelsSchema = z.record(
  channel,
  z.strictObject({
    /** Extra instructions added to the system prompt in that channel. */
    prompt: z
      .string()
      .trim()
      .min(1, 'prompt must not be empty')
      .max(4000, 'prompt must be at most 4000 characters')
      .optional(),
    /** Another model name for that channel. */
    model: z.string().trim().min(1, 'model must not be empty').optional(),
    /** Skills enabled in that channel only, pinned like the top-level `skills`. */
    skills: skillsSchema.optional(),
  }),
);

export type AccessSettings = z.infer<typeof accessSchema>;
export type LimitsSettings = z.infer<typeof limitsSchema>;
export type PricingSettings = z.infer<typeof pricingSchema>;
export type ModelPrice = PricingSettings[string];
export type ChannelSettings = z.infer<typeof channelsSchema>;
