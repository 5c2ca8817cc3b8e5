/** "stop", "cancel", "stop all", "cancel all" (any case, trailing punctuation): the fast stop path. */
export function parseStopMessage(text: string): { all: boolean } | null {
  const m = /^\s*(?:stop|cancel)(\s+all)?\s*[.!]*\s*$/i.exec(text);
  return m ? { all: m[1] !== undefined } : null;
}
