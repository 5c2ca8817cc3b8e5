/**
 * Messages with files, as Discord takes them: `POST /channels/{id}/messages` as multipart/form-data whose
 * `payload_json` part is the JSON body and whose `files[n]` parts are the files (read as bytes, never as text),
 * `attachments` in the body naming each by its `id` n. At most ten files; a file past the upload limit (10 MiB
 * for a bot in a server without boosts) is refused with 413 and code 40005, as Discord does.
 */

/** One file part of a multipart request. */
export interface UploadedPart {
  /** The form field (`files[0]`). */
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

/** A refusal in Discord's words: the HTTP status and the JSON body. */
export interface FileProblem {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** A file to attach to the stored message. */
export interface AcceptedFile {
  readonly name: string;
  readonly contentType?: string;
  readonly bytes: Uint8Array;
}

/** Discord's limit on a bot's upload to a server without boosts. */
export const DISCORD_UPLOAD_LIMIT = 10 * 1024 * 1024;
const MAX_FILES = 10;

/** The JSON body (`payload_json`) and the file parts of a multipart/form-data request. */
export async function readMultipart(
  raw: Buffer,
  contentType: string,
): Promise<{ payload: unknown; parts: UploadedPart[] }> {
  const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  let payload: unknown = undefined;
  const parts: UploadedPart[] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      if (field === 'payload_json') payload = JSON.parse(value) as unknown;
      continue;
    }
    const file = value as unknown as { name: string; type: string; arrayBuffer(): Promise<ArrayBuffer> };
    parts.push({ field, filename: file.name, contentType: file.type, bytes: new Uint8Array(await file.arrayBuffer()) });
  }
  return { payload, parts };
}

const invalid = (field: string, code: string, message: string): FileProblem => ({
  status: 400,
  body: { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code, message }] } } },
});

/** The files a message gets, or Discord's refusal: too many, too big, or `attachments` naming a part that is not there. */
export function acceptFiles(
  payload: unknown,
  parts: readonly UploadedPart[],
  limitBytes: number,
): AcceptedFile[] | FileProblem {
  if (parts.length > MAX_FILES)
    return invalid('files', 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_FILES} or fewer in length.`);
  if (parts.some((p) => p.bytes.byteLength > limitBytes))
    return { status: 413, body: { message: 'Request entity too large', code: 40005 } };
  const declared = (payload as { attachments?: unknown } | undefined)?.attachments;
  const named = new Map<string, string>();
  if (declared !== undefined) {
    if (!Array.isArray(declared))
      return invalid('attachments', 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    for (const [i, a] of (declared as { id?: unknown; filename?: unknown }[]).entries()) {
      const part = parts.find((p) => p.field === `files[${String(a.id)}]`);
      if (!part) return invalid(`attachments.${i}.id`, 'ATTACHMENT_NOT_FOUND', 'Attachment data not found');
      if (typeof a.filename === 'string' && a.filename !== '') named.set(part.field, a.filename);
    }
  }
  for (const p of parts)
    if (!/^files\[\d+\]$/.test(p.field) && p.field !== 'file')
      return invalid(p.field, 'ATTACHMENT_NOT_FOUND', 'Unknown file field');
  return parts.map((p) => ({
    name: named.get(p.field) ?? p.filename,
    ...(p.contentType ? { contentType: p.contentType } : {}),
    bytes: p.bytes,
  }));
}

/** Whether the answer of `acceptFiles` is a refusal. */
export const isFileProblem = (x: AcceptedFile[] | FileProblem): x is FileProblem => !Array.isArray(x);
