/** Formats one chat message for the terminal: a speaker line, then the text indented. */
export function renderConsoleMessage(speaker: string, text: string): string {
  const body = text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  return `${speaker}:\n${body}`;
}
