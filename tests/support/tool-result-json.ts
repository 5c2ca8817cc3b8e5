/**
 * What a tool message of a recorded model request carries inside its `<tool_result>` frame
 * (src/agent/tool-result-frame.ts). Throws when the frame is missing, so a test reading results also
 * checks that every result went out framed.
 */
export function unframedToolResult(content: unknown): string {
  const text = String(content);
  const framed = /^<tool_result>\n([\s\S]*)\n<\/tool_result>$/.exec(text);
  if (!framed)
    throw new Error(`a tool result went to the model without its <tool_result> frame: ${text.slice(0, 200)}`);
  return framed[1]!;
}

/** The result a tool message of a recorded model request carries, parsed from inside its frame. */
export function toolResultJson(content: unknown): unknown {
  return JSON.parse(unframedToolResult(content)) as unknown;
}
