/** Platform mention syntax (`<@id>`, as core notices write it) shown the way a terminal reader expects: `@id`. */
const MENTION = /<@([A-Za-z0-9_.-]+)>/g;

/** Formats one chat message for the terminal: a speaker line, then the text indented, mentions readable. */
export function renderConsoleMessage(speaker: string, text: string): string {
  const body = text
    .replace(MENTION, '@$1')
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  return `${speaker}:\n${body}`;
}
