import { z } from 'zod';

/** One suggested prompt of Slack's assistant view: `title` is the chip people see, `message` is what it sends. */
export const suggestedPromptSchema = z.strictObject({
  title: z.string().trim().min(1, 'expected a short, non-empty title'),
  message: z.string().trim().min(1, 'expected the message the prompt sends'),
});

export type SuggestedPrompt = z.infer<typeof suggestedPromptSchema>;

/** What a new assistant thread offers when nobody configured prompts: one of each thing Errand is good at. */
export const DEFAULT_SUGGESTED_PROMPTS: readonly SuggestedPrompt[] = [
  {
    title: 'Summarise a thread',
    message: 'Summarise the discussion in this channel from the last day and list any open questions.',
  },
  { title: 'Schedule a reminder', message: 'Every weekday at 9:00, remind me of my open to-dos.' },
  { title: 'Plan a task', message: 'Help me break a task into steps and keep the list as a to-do list.' },
];

/** Slack-only settings of the configuration file (`slack`); absent keys keep the defaults. */
export const slackSettingsSchema = z.strictObject({
  /** Shown when someone opens a new assistant thread; Slack shows at most four. */
  suggestedPrompts: z
    .array(suggestedPromptSchema)
    .min(1, 'give at least one prompt, or leave the key out for the defaults')
    .max(4, 'Slack shows at most 4 suggested prompts')
    .default([...DEFAULT_SUGGESTED_PROMPTS]),
  /**
   * How a streamed answer shows the run's steps (one task card per tool call): `timeline` puts each card
   * in order between the streamed text, `plan` gathers them in one plan block (Slack's `task_display_mode`).
   */
  taskDisplay: z.enum(['timeline', 'plan'], { message: 'expected "timeline" or "plan"' }).default('timeline'),
});

/** Slack's `task_display_mode` for the steps of a streamed answer. */
export type TaskDisplay = SlackSettings['taskDisplay'];

export type SlackSettings = z.infer<typeof slackSettingsSchema>;
