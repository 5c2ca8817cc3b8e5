/**
 * Splits Markdown into pieces of at most `limit` characters for platforms with a message
 * size limit. Prefers paragraph, then line, then word boundaries; never leaves a code fence
 * open: a code block too long for one piece is closed at the end of a piece and reopened
 * (same language) at the start of the next.
 */
export function splitText(text: string, limit: number): string[] {
  if (limit < 20) throw new RangeError('splitText: limit must be at least 20 characters');
  if (text.length <= limit) return [text];
  const pieces: string[] = [];
  let current = '';
  const flush = () => {
    const trimmed = current.replace(/\s+$/, '');
    if (trimmed.trim().length > 0) pieces.push(trimmed);
    current = '';
  };
  for (const block of toBlocks(text)) {
    const sep = current === '' ? '' : '\n\n';
    if (current.length + sep.length + block.text.length <= limit) {
      current += sep + block.text;
      continue;
    }
    flush();
    if (block.text.length <= limit) {
      current = block.text;
      continue;
    }
    const parts = block.fence ? splitFence(block.text, block.fence, limit) : splitProse(block.text, limit);
    for (const p of parts.slice(0, -1)) pieces.push(p);
    current = parts.at(-1) ?? '';
  }
  flush();
  return pieces;
}

interface Block {
  text: string;
  /** The opening fence line (e.g. "```ts") when the block is a code block. */
  fence: string | null;
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

function toBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  let prose: string[] = [];
  const flushProse = () => {
    const joined = prose.join('\n');
    for (const para of joined.split(/\n{2,}/)) if (para.trim() !== '') blocks.push({ text: para, fence: null });
    prose = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const open = FENCE.exec(line);
    if (!open) {
      prose.push(line);
      continue;
    }
    flushProse();
    const marker = open[2] ?? '```';
    const body = [line];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j] ?? '';
      body.push(l);
      if (l.trim().startsWith(marker) && l.trim().replace(/[`~]/g, '') === '') break;
    }
    if (j >= lines.length) body.push(marker);
    blocks.push({ text: body.join('\n'), fence: line.trim() });
    i = j;
  }
  flushProse();
  return blocks;
}

function splitFence(block: string, fenceLine: string, limit: number): string[] {
  const marker = (FENCE.exec(fenceLine)?.[2] ?? '```').trim();
  const inner = block.split('\n').slice(1, -1);
  const overhead = fenceLine.length + marker.length + 2;
  const room = limit - overhead;
  const pieces: string[] = [];
  let lines: string[] = [];
  let size = 0;
  const flush = () => {
    if (lines.length > 0) pieces.push(`${fenceLine}\n${lines.join('\n')}\n${marker}`);
    lines = [];
    size = 0;
  };
  for (const raw of inner) {
    for (const line of hardWrap(raw, room)) {
      if (size + line.length + 1 > room) flush();
      lines.push(line);
      size += line.length + 1;
    }
  }
  flush();
  return pieces;
}

function splitProse(para: string, limit: number): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const line of para.split('\n')) {
    for (const segment of line.length <= limit ? [line] : wrapWords(line, limit)) {
      const sep = current === '' ? '' : '\n';
      if (current.length + sep.length + segment.length > limit) {
        pieces.push(current);
        current = segment;
      } else current += sep + segment;
    }
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

function wrapWords(line: string, limit: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of line.split(/(?<=\s)/)) {
    if (current.length + word.length <= limit) {
      current += word;
      continue;
    }
    if (current.trim() !== '') out.push(current.trimEnd());
    current = '';
    for (const chunk of hardWrap(word, limit)) {
      if (chunk.length === limit) out.push(chunk);
      else current = chunk;
    }
  }
  if (current.trim() !== '') out.push(current.trimEnd());
  return out;
}

function hardWrap(s: string, width: number): string[] {
  if (s.length <= width) return [s];
  const out: string[] = [];
  for (let i = 0; i < s.length; i += width) out.push(s.slice(i, i + width));
  return out;
}
