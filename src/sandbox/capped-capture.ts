/**
 * What a stream wrote, kept within a cap: the first half and the last half of the cap, with the count of what
 * fell between. Code that prints without end costs Errand a fixed amount of memory, and what it printed last
 * (the error at the end of a long log) is still there.
 */
export interface CappedCapture {
  push(chunk: Buffer): void;
  /** The kept text; `omittedBytes` > 0 when the middle was dropped. */
  result(): CapturedText;
}

/** A stream as captured: the kept text (head and tail), its full size, and how much of the middle was dropped. */
export interface CapturedText {
  readonly text: string;
  readonly totalBytes: number;
  readonly omittedBytes: number;
}

/** Keeps at most `capBytes` of a stream: head and tail. */
export function cappedCapture(capBytes: number): CappedCapture {
  const headCap = Math.floor(capBytes / 2);
  const tailCap = capBytes - headCap;
  const head: Buffer[] = [];
  let headBytes = 0;
  let tail: Buffer[] = [];
  let tailBytes = 0;
  let total = 0;
  return {
    push(chunk) {
      total += chunk.length;
      if (headBytes < headCap) {
        const take = Math.min(headCap - headBytes, chunk.length);
        head.push(chunk.subarray(0, take));
        headBytes += take;
        chunk = chunk.subarray(take);
        if (chunk.length === 0) return;
      }
      tail.push(chunk);
      tailBytes += chunk.length;
      if (tailBytes > tailCap * 2) {
        const joined = Buffer.concat(tail);
        tail = [joined.subarray(joined.length - tailCap)];
        tailBytes = tailCap;
      }
    },
    result() {
      const joinedTail = Buffer.concat(tail);
      const keptTail = joinedTail.subarray(Math.max(0, joinedTail.length - tailCap));
      const omitted = total - headBytes - keptTail.length;
      const text =
        omitted > 0
          ? `${Buffer.concat(head).toString('utf8')}\n… ${omitted} bytes not kept …\n${keptTail.toString('utf8')}`
          : Buffer.concat([...head, keptTail]).toString('utf8');
      return { text, totalBytes: total, omittedBytes: omitted };
    },
  };
}
