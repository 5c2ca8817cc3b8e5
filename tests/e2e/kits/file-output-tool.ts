import type { ManagedToolSource } from '../../../src/app.js';
import type { FilesOut, OutputFile, PostedFile } from '../../../src/attachments/workspace-ports.js';

/**
 * A tool standing in for run_code's end until it lands: the model calls `test__write_files` with the name of a
 * prepared set of files, which are posted through FilesOut exactly as run_code posts what the code wrote to
 * `/workspace/out/` when its call ends, from the run that called it. Records what each call was told.
 */
export function fileOutputTool(
  filesOut: () => FilesOut,
  sets: Readonly<Record<string, readonly OutputFile[]>>,
): ManagedToolSource & { readonly results: (readonly PostedFile[])[] } {
  const results: (readonly PostedFile[])[] = [];
  const tool = {
    name: 'test__write_files',
    description: 'Writes a prepared set of files to /workspace/out/ (a stand-in for run_code).',
    inputSchema: { type: 'object', properties: { set: { type: 'string' } }, required: ['set'] },
    needsApproval: false,
    call: async (
      args: Record<string, unknown>,
      context: { conversation: Parameters<FilesOut['postFiles']>[0]; runId: string; signal?: AbortSignal },
    ) => {
      const files = sets[String(args.set)];
      if (!files) return { ok: false as const, error: `no set ${String(args.set)}` };
      const posted = await filesOut().postFiles(context.conversation, context.runId, files, context.signal);
      results.push(posted);
      return { ok: true as const, exit_code: 0, files: posted };
    },
  };
  return { toolsFor: () => [tool], results };
}

/** A PNG of `size` bytes, as a chart's file would be: a valid 1×1 image, then filler bytes up to the size. */
export function pngOfSize(size: number): Uint8Array {
  const head = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  const fill = Math.max(0, size - head.length);
  const out = Buffer.alloc(head.length + fill);
  head.copy(out);
  for (let i = head.length; i < out.length; i++) out[i] = (i * 31) & 0xff;
  return new Uint8Array(out);
}
