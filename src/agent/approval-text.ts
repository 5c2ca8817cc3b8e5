import { codeBlock } from '../chat/code-fence.js';
import type { StoredToolCall } from '../records/stored-values.js';
import type { ShownArguments } from './tools/tool.js';

/**
 * Arguments up to this size are shown whole: the outbox splits the post over as many platform messages
 * as it takes (each with its part of the code block, the buttons on the last). Past it, a head and a
 * tail with the count of what is between: a post nobody can read through is no better review.
 */
export const MAX_ARGS_SHOWN = 12_000;
const TAIL_SHOWN = 4_000;

/** A cut position moved back off the middle of a surrogate pair, so no half emoji is shown. */
function cutAt(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/**
 * The approval question: the tool and its arguments (pretty-printed when they are JSON) in a code
 * block they cannot close (src/chat/code-fence.ts), whole up to MAX_ARGS_SHOWN characters.
 */
export function approvalText(tool: string, call: Pick<StoredToolCall, 'arguments'>, shown?: ShownArguments): string {
  let args = call.arguments.trim() || '{}';
  let info = '';
  try {
    args = JSON.stringify(JSON.parse(args), null, 2);
    info = 'json';
  } catch {
    // shown as the model wrote it
  }
  if (shown) ({ text: args, info } = shown);
  const ask = 'Allow it? Reply **allow** (once), **always** (this tool in this conversation) or **deny**.';
  if (args.length <= MAX_ARGS_SHOWN)
    return `🔐 **Approval needed:** I want to run \`${tool}\` with:\n${codeBlock(args, info)}\n${ask}`;
  const headEnd = cutAt(args, MAX_ARGS_SHOWN - TAIL_SHOWN);
  const tailStart = cutAt(args, args.length - TAIL_SHOWN);
  const n = (count: number) => count.toLocaleString('en-US');
  return [
    `🔐 **Approval needed:** I want to run \`${tool}\` with arguments of ${n(args.length)} characters, too long to show whole: here are the first ${n(headEnd)} and the last ${n(args.length - tailStart)}.`,
    codeBlock(args.slice(0, headEnd), info),
    `*… ${n(tailStart - headEnd)} characters not shown …*`,
    codeBlock(args.slice(tailStart), info),
    ask,
  ].join('\n');
}
