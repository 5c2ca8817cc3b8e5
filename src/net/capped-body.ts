/** A download that brought more bytes than it was allowed: stopped there, nothing kept. */
export class BodyTooLargeError extends Error {}

/**
 * Reads a response's body, but never more than `maxBytes`: past that the body is cancelled and it throws
 * BodyTooLargeError. For downloads whose size the platform stated beforehand (a file on a message): the caps
 * were checked against that statement, and this holds the bytes to it, so a file that is bigger than said
 * cannot fill the memory. `maxBytes` null: the whole body.
 */
export async function readCappedBody(res: Response, maxBytes: number | null, what: string): Promise<Uint8Array> {
  if (maxBytes === null || !res.body) return new Uint8Array(await res.arrayBuffer());
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw new BodyTooLargeError(`${what} is ${declared} bytes, more than the ${maxBytes} it was said to be`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new BodyTooLargeError(`${what} is more than the ${maxBytes} bytes it was said to be`);
    chunks.push(chunk);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
