/** Hands freed native memory back to the operating system; false where that is not possible here. */
export type MallocTrim = () => boolean;

type TrimFunction = (pad: number) => number;

/**
 * glibc's `malloc_trim(0)`, called through koffi (a C FFI with prebuilt binaries), loaded on first use.
 *
 * Why: glibc keeps memory that was freed in the middle of its heap; only `malloc_trim` gives those pages
 * back. After a burst, the HTTP bodies and socket buffers V8 frees at a full collection stay resident in
 * glibc's heap (about 13 MB after 10 000 conversations). Ruby does the same after its full collections.
 * Elsewhere (macOS, Windows, musl) there is no such call, the load fails once and trimming is skipped.
 */
export function createMallocTrim(load: () => Promise<TrimFunction> = loadGlibcTrim): MallocTrim {
  let trim: TrimFunction | null | undefined;
  let loading: Promise<void> | null = null;
  return () => {
    if (trim === null) return false;
    if (trim !== undefined) {
      trim(0);
      return true;
    }
    // The first call loads the function and trims when it is there; later calls trim at once.
    loading ??= load().then(
      (fn) => {
        trim = fn;
        fn(0);
      },
      () => {
        trim = null;
      },
    );
    return true;
  };
}

/** glibc's `malloc_trim` through koffi; rejects where there is no glibc. */
export async function loadGlibcTrim(): Promise<TrimFunction> {
  if (process.platform !== 'linux') throw new Error('malloc_trim is glibc-only');
  const koffi = (await import('koffi')).default;
  // Throws on musl (no libc.so.6) or a libc without malloc_trim.
  return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as TrimFunction;
}
