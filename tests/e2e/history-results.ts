import type { RecordedRequest } from '../fakes/fake-openai.js';
import { toolResultJson } from '../support/tool-result-json.js';

/** One message as read_thread / read_channel hand it to the model. */
export interface ReadMessage {
  author: string;
  time: string;
  text: string;
  bot?: true;
  self?: true;
  replies?: number;
}

type ReadResult = { ok: true; messages: ReadMessage[]; truncated?: true } | { ok: false; error: string };

/** The last tool result in a model request, parsed. */
export function lastToolResult(req: RecordedRequest): ReadResult {
  return toolResultJson(req.messages.filter((m) => m.role === 'tool').at(-1)?.content) as ReadResult;
}

/** The messages of the last history tool result in a model request (fails when the tool failed). */
export function readMessages(req: RecordedRequest): ReadMessage[] {
  const r = lastToolResult(req);
  if (!r.ok) throw new Error(`tool failed: ${r.error}`);
  return r.messages;
}
