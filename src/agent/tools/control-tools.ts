import { z } from 'zod';
import { defineTool, ok } from './tool.js';

/** The tools that steer the loop: progress messages, questions, and finishing. */
export function createControlTools() {
  return [
    defineTool({
      name: 'send_update',
      description: 'Post a short progress message in the thread while you keep working. The run goes on.',
      parameters: z.object({ text: z.string().trim().min(1, 'text must not be empty').max(4000) }),
      execute: ({ text }) => ({ result: { ok: true, posted: true }, effect: { kind: 'update', text } }),
    }),
    defineTool({
      name: 'ask_user',
      description:
        'Ask the person a question in the thread and wait for the answer (typed, or a click on one of the options). Use only when you cannot proceed without it. The answer comes back as this tool\'s result; "no_answer" means nobody answered in time and you must decide how to go on.',
      parameters: z.object({
        question: z.string().trim().min(1, 'question must not be empty').max(2000),
        options: z
          .array(z.string().trim().min(1).max(75, 'each option must be at most 75 characters'))
          .min(2, 'give 2 to 5 options, or none')
          .max(5, 'give 2 to 5 options, or none')
          .optional(),
      }),
      execute: ({ question, options }) => ({
        result: { ok: true },
        effect: { kind: 'ask', question, options: options ?? [] },
      }),
    }),
    defineTool({
      name: 'task_complete',
      description: 'Finish the current request or to-do item with a short summary of what was done. Ends this run.',
      parameters: z.object({ summary: z.string().trim().min(1, 'summary must not be empty').max(4000) }),
      execute: ({ summary }) => ({ ...ok({ completed: true }), effect: { kind: 'complete', summary } }),
    }),
  ];
}
