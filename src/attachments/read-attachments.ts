import type { ImagePart } from '../records/stored-values.js';
import type { InboundAttachment } from '../chat/inbound.js';
import type { Logger } from '../logger.js';
import { classifyAttachment, sniffImageType } from './attachment-kind.js';

/** What may be read, from the settings (OPENAI_VISION, ATTACHMENT_MAX_IMAGE_MB, ATTACHMENT_MAX_TEXT_KB). */
export interface AttachmentLimits {
  /** Whether images go to the model at all (a model without vision refuses image parts). */
  readonly vision: boolean;
  readonly maxImageMb: number;
  readonly maxTextKb: number;
}

/** What became of one file: text for the request, an image part, or a reason it was not read. */
export type AttachmentOutcome =
  | { readonly kind: 'text'; readonly name: string; readonly text: string; readonly language: string }
  | { readonly kind: 'image'; readonly image: ImagePart }
  | {
      readonly kind: 'skipped';
      readonly name: string;
      /** Put in the request where the file would be, so the model knows it was there. */
      readonly placeholder: string;
      /** Said in the thread, so the person knows it was not read and why. */
      readonly note: string;
    };

const MB = 1024 * 1024;
const KB = 1024;

function skipped(name: string, reason: string): AttachmentOutcome {
  return { kind: 'skipped', name, placeholder: `[not read: ${reason}]`, note: `I couldn't read ${name}: ${reason}.` };
}

/**
 * Downloads and reads the files of one message, in their order. Sizes are checked before any
 * download (from what the platform says) and again on the bytes; images are checked to be what
 * they claim. A failure of one file becomes its `skipped` outcome and never affects the others.
 */
export async function readAttachments(
  list: readonly InboundAttachment[],
  limits: AttachmentLimits,
  signal: AbortSignal,
  logger?: Logger,
): Promise<AttachmentOutcome[]> {
  return Promise.all(list.map((a) => readOne(a, limits, signal, logger)));
}

async function readOne(
  a: InboundAttachment,
  limits: AttachmentLimits,
  signal: AbortSignal,
  logger: Logger | undefined,
): Promise<AttachmentOutcome> {
  const kind = classifyAttachment(a.name, a.mimeType);
  if (kind.kind === 'unsupported') return skipped(a.name, kind.reason);
  if (kind.kind === 'image' && !limits.vision) {
    return {
      kind: 'skipped',
      name: a.name,
      placeholder: '[image omitted: vision is off]',
      note: `I didn't look at ${a.name}: reading images is turned off here.`,
    };
  }
  const cap = kind.kind === 'image' ? limits.maxImageMb * MB : limits.maxTextKb * KB;
  const overCap =
    kind.kind === 'image'
      ? `it is over the ${limits.maxImageMb} MB limit for images`
      : `it is over the ${limits.maxTextKb} KB limit for text files`;
  if (a.size > cap) return skipped(a.name, overCap);
  let bytes: Uint8Array;
  try {
    bytes = await a.fetch(signal);
  } catch (err) {
    logger?.warn({ err, file: a.name }, 'downloading an attachment failed');
    return skipped(a.name, 'downloading it failed');
  }
  if (bytes.length > cap) return skipped(a.name, overCap);
  if (kind.kind === 'image') {
    const actual = sniffImageType(bytes);
    if (!actual) return skipped(a.name, "it isn't a PNG, JPEG, GIF or WebP image");
    return {
      kind: 'image',
      image: { name: a.name, url: `data:${actual};base64,${Buffer.from(bytes).toString('base64')}` },
    };
  }
  const text = decodeText(bytes);
  if (text === null) return skipped(a.name, "it isn't UTF-8 text");
  return { kind: 'text', name: a.name, text, language: kind.language };
}

/** UTF-8 text without NUL characters (a binary file labelled as text has them), else null. */
function decodeText(bytes: Uint8Array): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}
