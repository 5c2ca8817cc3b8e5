import { describe, expect, it } from 'vitest';
import { createMallocTrim, loadGlibcTrim } from '../../src/runtime/process/malloc-trim.js';

const settled = () => new Promise((r) => setTimeout(r, 0));

describe('malloc trim', () => {
  it('loads the function on first use and trims then, and at once on every later call', async () => {
    const pads: number[] = [];
    let loads = 0;
    const trim = createMallocTrim(async () => {
      loads++;
      return (pad) => (pads.push(pad), 1);
    });
    expect(trim()).toBe(true);
    await settled();
    expect(pads).toEqual([0]);
    expect(trim()).toBe(true);
    expect(pads).toEqual([0, 0]);
    expect(loads).toBe(1);
  });

  it('gives up for good where the function cannot be loaded, without trying again', async () => {
    let loads = 0;
    const trim = createMallocTrim(async () => {
      loads++;
      throw new Error('no glibc here');
    });
    trim();
    await settled();
    expect(trim()).toBe(false);
    expect(trim()).toBe(false);
    expect(loads).toBe(1);
  });

  it('reaches glibc malloc_trim on a glibc Linux, and refuses elsewhere', async () => {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    if (process.platform === 'linux' && header?.glibcVersionRuntime !== undefined) {
      const trim = await loadGlibcTrim();
      expect([0, 1]).toContain(trim(0));
    } else {
      await expect(loadGlibcTrim()).rejects.toThrow();
    }
  });
});
