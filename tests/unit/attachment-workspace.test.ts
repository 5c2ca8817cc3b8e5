import { describe, expect, it } from 'vitest';
import { createAttachmentIntake } from '../../src/attachments/attachment-intake.js';
import { inputName } from '../../src/attachments/workspace-copies.js';
import type { InboundAttachment } from '../../src/chat/inbound.js';
import { silentLogger } from '../../src/logger.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { MemoryWorkspace } from '../fakes/memory-workspace.js';

/** An attachment whose downloads are counted. */
function attachment(
  name: string,
  bytes: Uint8Array,
  mimeType = 'text/csv',
  size = bytes.byteLength,
): InboundAttachment & { readonly counted: { downloads: number } } {
  const counted = { downloads: 0 };
  return {
    name,
    mimeType,
    size,
    counted,
    fetch: async () => {
      counted.downloads++;
      return bytes;
    },
  };
}

/** An intake on a recording task store, with a workspace of `quota` bytes copying files up to `maxBytes`. */
function intake(workspace: MemoryWorkspace, maxBytes = 1000) {
  const filled: { description: string }[] = [];
  const store = {
    hold: async () => undefined,
    fill: async (_id: number, description: string) => {
      filled.push({ description });
      return true;
    },
  };
  const limits = { vision: true, maxImageMb: 1, maxTextKb: 1 };
  return {
    filled,
    intake: createAttachmentIntake({
      store,
      limits,
      clock: new FakeClock(),
      logger: silentLogger(),
      timeout: () => new AbortController().signal,
      workspace: { inputs: workspace, maxBytes },
    }),
  };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('attachments copied into the workspace', () => {
  it('downloads each file once for both the model and the workspace, and keeps the notes for what is not anywhere', async () => {
    const workspace = new MemoryWorkspace();
    const { filled, intake: it2 } = intake(workspace);
    const csv = attachment('data.csv', bytes('a,b\n1,2\n'));
    const zip = attachment('logs.zip', bytes('PK\u0003\u0004'), 'application/zip');
    const notes = await it2.read(1, 'look', [csv, zip], 'slack:T1:C1:1.1');
    expect([csv.counted.downloads, zip.counted.downloads]).toEqual([1, 1]);
    expect(workspace.pathsOf('slack:T1:C1:1.1')).toEqual(['in/data.csv', 'in/logs.zip']);
    expect(filled[0]!.description).toContain(
      'Attached files are in /workspace/in/: data.csv (8 bytes), logs.zip (4 bytes).',
    );
    expect(filled[0]!.description).toContain(
      "📎 logs.zip: [not read: ZIP files aren't supported yet; the file is at /workspace/in/logs.zip]",
    );
    expect(notes).toEqual([]);
  });

  it('refuses a file bigger than the workspace before downloading it, and says so to the model; a full workspace too', async () => {
    const workspace = new MemoryWorkspace(10);
    const { filled, intake: it2 } = intake(workspace, 20);
    const big = attachment('big.bin', new Uint8Array(0), 'application/octet-stream', 21);
    const fits = attachment('a.txt', bytes('0123456789'), 'text/plain');
    const full = attachment('b.txt', bytes('x'), 'text/plain');
    const notes = await it2.read(1, 'look', [big, fits, full], 'c1');
    expect(big.counted.downloads).toBe(0);
    expect(workspace.pathsOf('c1')).toEqual(['in/a.txt']);
    expect(filled[0]!.description).toContain(
      "Not copied to /workspace/in/: big.bin (it is over the workspace's 20 bytes), b.txt (the workspace is full).",
    );
    expect(notes).toEqual(["I couldn't read big.bin: .bin files aren't supported yet."]);
  });

  it("copies a file under its own name only, whatever folder or control characters a platform's name carries", () => {
    expect(['../../etc/passwd', 'a\\b.csv', 'report\u0000.pdf', '..', '', 'ok.csv'].map(inputName)).toEqual([
      'passwd',
      'b.csv',
      'report.pdf',
      'file',
      'file',
      'ok.csv',
    ]);
  });
});
