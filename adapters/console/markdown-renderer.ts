import { ansi, type Style } from './terminal-style.js';

/** Turns the model's Markdown into styled terminal text. */
export type MarkdownRenderer = (markdown: string) => string;

const identity: Style = (text) => text;

/**
 * Loads `marked` and `marked-terminal` and returns a renderer for a terminal `width` columns wide.
 * Loaded on demand, and only by the console adapter on a colour terminal: the platform adapters and
 * piped consoles never pay for the libraries (and cli-highlight behind them) in start-up time or memory.
 * Styles are passed in explicitly, so the result does not depend on what chalk guesses about stdout.
 */
export async function loadMarkdownRenderer(width: number): Promise<MarkdownRenderer> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([import('marked'), import('marked-terminal')]);
  const marked = new Marked(
    markedTerminal({
      width,
      reflowText: false,
      emoji: false,
      tab: 2,
      showSectionPrefix: false,
      firstHeading: (t) => ansi.bold(ansi.underline(t)),
      heading: ansi.bold,
      strong: ansi.bold,
      em: ansi.italic,
      del: (t) => ansi.dim(ansi.strike(t)),
      codespan: ansi.yellow,
      code: ansi.yellow,
      blockquote: (t) => ansi.gray(ansi.italic(t)),
      html: ansi.gray,
      link: ansi.blue,
      href: (t) => ansi.blue(ansi.underline(t)),
      hr: identity,
      listitem: identity,
      paragraph: identity,
      table: identity,
    }),
  );
  return (markdown) => {
    const out = marked.parse(markdown, { async: false });
    return out.replace(/\n+$/, '');
  };
}
