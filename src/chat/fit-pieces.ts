import { AdapterError } from '../errors.js';
import { splitText } from './split-text.js';

/** A piece is never split below this many characters of Markdown (splitText's own floor). */
const MIN_PIECE = 20;

/**
 * Splits Markdown into the pieces an adapter posts one message each: the split of `splitText` (paragraphs,
 * lines, words; code fences closed and reopened), measured as the platform will show each piece
 * (`formattedLength`, its dialect's escapes and the mention on the first piece counted); while a piece comes out
 * over `limit`, the whole text is split again with a budget shrunk by the worst piece's overflow, so the pieces stay
 * even and in order. Empty when there is nothing to say. Throws AdapterError when no split fits (a mention longer
 * than the limit).
 */
export function fitPieces(
  text: string,
  limit: number,
  formattedLength: (piece: string, first: boolean) => number,
): string[] {
  if (text.trim() === '') return [];
  let budget = limit;
  for (;;) {
    const pieces = splitText(text, budget);
    const sizes = pieces.map((piece, i) => ({ length: piece.length, size: formattedLength(piece, i === 0) }));
    const over = sizes.filter((p) => p.size > limit);
    if (over.length === 0) return pieces;
    // The longest a piece may be at the expansion of the pieces that came out over the limit.
    const tighter = Math.min(budget - 1, ...over.map((p) => Math.floor((p.length * limit) / p.size)));
    if (tighter < MIN_PIECE)
      throw new AdapterError(`text cannot be split into messages of at most ${limit} characters once formatted`);
    budget = tighter;
  }
}
