import type { ImagePart } from '../records/stored-values.js';
import type { InboundAttachment } from '../chat/inbound.js';
import type { AttachmentOutcome } from './read-attachments.js';

/** A fence longer than any run of backticks in `text`, so a file's own fences cannot end the block. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function section(o: AttachmentOutcome): string {
  switch (o.kind) {
    case 'text': {
      const fence = fenceFor(o.text);
      const body = o.text.endsWith('\n') ? o.text : `${o.text}\n`;
      return `📎 ${o.name}:\n${fence}${o.language}\n${body}${fence}`;
    }
    case 'image':
      return `📎 ${o.image.name} (image, attached)`;
    case 'skipped':
      return `📎 ${o.name}: ${o.placeholder}`;
  }
}

/**
 * The request as the model reads it: the person's words, then each file — text files whole in a
 * fence under their name, images by name (their parts travel beside the text), the rest with why
 * they were not read.
 */
export function requestWithAttachments(request: string, outcomes: readonly AttachmentOutcome[]): string {
  if (outcomes.length === 0) return request;
  return `${request}\n\n${outcomes.map(section).join('\n\n')}`;
}

/**
 * The request stored before its files are read. It only reaches the model if reading never
 * finished (the process stopped meanwhile), and then says so instead of pretending there were no files.
 */
export function requestWithUnreadAttachments(request: string, attachments: readonly InboundAttachment[]): string {
  if (attachments.length === 0) return request;
  const lines = attachments.map(
    (a) => `📎 ${a.name}: [not read: Errand stopped before reading it; ask for it to be sent again]`,
  );
  return `${request}\n\n${lines.join('\n\n')}`;
}

/** The image parts among the outcomes, in order. */
export function imagesOf(outcomes: readonly AttachmentOutcome[]): ImagePart[] {
  return outcomes.flatMap((o) => (o.kind === 'image' ? [o.image] : []));
}

/** One line per file that was not read, for a note in the thread. */
export function attachmentNotes(outcomes: readonly AttachmentOutcome[]): string[] {
  return outcomes.flatMap((o) => (o.kind === 'skipped' ? [o.note] : []));
}
