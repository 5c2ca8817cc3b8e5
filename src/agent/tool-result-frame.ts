/**
 * Every tool result reaches the model between `<tool_result>` and `</tool_result>`: what people wrote
 * in a thread or channel, what an MCP server or the page behind it returned, is data, and the system
 * prompt tells the model that nothing between these tags is an instruction to it. The result inside
 * keeps its JSON shape (`{ ok: true, … }`, `{ ok: false, error }`).
 *
 * The data cannot end the frame early or open another: a `<` that would start a `tool_result` tag
 * inside it is written `\u003c`, which is the same JSON (a string escape for the same character), so
 * the result still parses to exactly what the tool returned. Framing happens as a request is sent,
 * never in the transcript, so stored results and their cuts are the tools' own JSON.
 */

export const TOOL_RESULT_OPEN = '<tool_result>';
export const TOOL_RESULT_CLOSE = '</tool_result>';

/** Characters the frame adds to a result (both tags and their line breaks), for the token estimate. */
export const TOOL_RESULT_FRAME_LENGTH = TOOL_RESULT_OPEN.length + TOOL_RESULT_CLOSE.length + 2;

/** A `<` that starts a tool_result tag (opening or closing, any case, spaces allowed after the slash). */
const TAG_START = /<(?=\s*\/?\s*tool_result)/gi;

/** The model's view of one tool result: its JSON between the tags, with any look-alike tag inside neutralised. */
export function frameToolResult(content: string): string {
  return `${TOOL_RESULT_OPEN}\n${content.replace(TAG_START, '\\u003c')}\n${TOOL_RESULT_CLOSE}`;
}
