import { isDeepStrictEqual } from 'node:util';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../agent/tools/tool.js';

/** Default cap on what one MCP call hands the model, in characters (about 4 000 tokens). */
export const DEFAULT_MAX_RESULT_CHARS = 16_000;

function sizeOfBase64(data: string): string {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  const bytes = Math.floor((data.length * 3) / 4) - padding;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} B`;
}

/** Text stays text; what the model cannot read (images, audio, blobs) becomes a one-line summary. */
function describeContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${sizeOfBase64(block.data)}]`;
    case 'resource_link':
      return `[resource ${block.uri}${block.name && !block.uri.endsWith(block.name) ? ` (${block.name})` : ''}]`;
    case 'resource': {
      const r = block.resource;
      return 'text' in r && typeof r.text === 'string'
        ? `[resource ${r.uri}]\n${r.text}`
        : `[resource ${r.uri}, ${r.mimeType ?? 'binary'}]`;
    }
    default:
      return '[unsupported content]';
  }
}

/** Cuts `text` to `max` characters, saying how much was left out so the model knows it saw a part. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = (n: number) => `\n[cut: ${n} more characters]`;
  const keep = Math.max(0, max - note(text.length).length);
  return `${text.slice(0, keep)}${note(text.length - keep)}`;
}

/** Every leaf of a JSON value (strings, numbers, booleans, null), depth first. */
function leavesOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(leavesOf);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(leavesOf);
  return [value];
}

/**
 * Which of the two to send when a result carries both text and `structuredContent` (the spec asks servers to
 * send both, and many repeat one in the other): `structured` when the text is the structured content as JSON
 * (compared as values, so formatting and key order do not matter) or one of its strings; `text` when the
 * structured content holds nothing but that text (`{ "content": "<the text>" }`); `both` otherwise.
 */
function whichToSend(text: string, structured: Record<string, unknown>): 'text' | 'structured' | 'both' {
  const said = text.trim();
  if (said === '') return 'structured';
  try {
    if (isDeepStrictEqual(JSON.parse(said), structured)) return 'structured';
  } catch {
    // not JSON: compare with the strings inside
  }
  const leaves = leavesOf(structured);
  const repeats = (leaf: unknown) => typeof leaf === 'string' && leaf.trim() === said;
  if (leaves.length > 0 && leaves.every(repeats)) return 'text';
  return leaves.some(repeats) ? 'structured' : 'both';
}

/**
 * Turns an MCP tool result into what the model gets: text joined, other content summarised,
 * `structuredContent` kept as a value when it fits, the whole capped at `maxChars` with a note.
 * Text that only repeats the structured content (or the reverse) is sent once. `isError` becomes
 * `{ ok: false }` so the model treats it as a failure it may correct.
 */
export function toToolResult(
  result: Pick<CallToolResult, 'content' | 'structuredContent' | 'isError'>,
  maxChars: number,
): ToolResult {
  const text = (result.content ?? []).map(describeContent).join('\n\n');
  if (result.isError)
    return { ok: false, error: capText(text.trim() || 'The tool reported an error without a message.', maxChars) };
  const structured = result.structuredContent;
  if (structured === undefined) return { ok: true, content: capText(text, maxChars) };
  const send = whichToSend(text, structured);
  if (send === 'text') return { ok: true, content: capText(text, maxChars) };
  const json = JSON.stringify(structured);
  const shownText = send === 'both' ? text : '';
  if (shownText.length + json.length <= maxChars)
    return shownText ? { ok: true, content: shownText, structured } : { ok: true, structured };
  return { ok: true, content: capText(shownText ? `${shownText}\n\nstructuredContent: ${json}` : json, maxChars) };
}
