/** What Errand does with a file, decided from its MIME type and, when that says little, its name. */
export type AttachmentKind =
  | { readonly kind: 'image'; readonly mimeType: ImageMimeType }
  | { readonly kind: 'text'; readonly language: string }
  | { readonly kind: 'unsupported'; readonly reason: string };

export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMimeType = (typeof IMAGE_MIME_TYPES)[number];

const IMAGE_EXTENSIONS: Readonly<Record<string, ImageMimeType>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** Extensions read as text; the value is the code fence's language (empty: none). */
const TEXT_EXTENSIONS: Readonly<Record<string, string>> = {
  txt: '',
  text: '',
  log: '',
  md: 'md',
  markdown: 'md',
  csv: 'csv',
  tsv: 'tsv',
  json: 'json',
  jsonl: 'json',
  ndjson: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'toml',
  xml: 'xml',
  html: 'html',
  htm: 'html',
  css: 'css',
  scss: 'scss',
  ini: 'ini',
  cfg: 'ini',
  conf: '',
  env: '',
  diff: 'diff',
  patch: 'diff',
  sql: 'sql',
  graphql: 'graphql',
  proto: 'proto',
  tf: 'hcl',
  js: 'js',
  mjs: 'js',
  cjs: 'js',
  jsx: 'jsx',
  ts: 'ts',
  tsx: 'tsx',
  mts: 'ts',
  cts: 'ts',
  vue: 'vue',
  svelte: 'svelte',
  py: 'python',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  kts: 'kotlin',
  scala: 'scala',
  swift: 'swift',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  php: 'php',
  pl: 'perl',
  lua: 'lua',
  r: 'r',
  dart: 'dart',
  ex: 'elixir',
  exs: 'elixir',
  erl: 'erlang',
  hs: 'haskell',
  clj: 'clojure',
  sh: 'sh',
  bash: 'bash',
  zsh: 'zsh',
  ps1: 'powershell',
  dockerfile: 'dockerfile',
  makefile: 'makefile',
  gradle: 'groovy',
};

/** Non-`text/*` MIME types that are still text. */
const TEXT_MIME_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/x-javascript',
  'application/typescript',
  'application/x-sh',
  'application/sql',
  'application/graphql',
]);

/** Names of kinds of files people often send, for the "not supported" note. */
const KNOWN_NAMES: Readonly<Record<string, string>> = {
  pdf: 'PDF',
  doc: 'Word',
  docx: 'Word',
  xls: 'Excel',
  xlsx: 'Excel',
  ppt: 'PowerPoint',
  pptx: 'PowerPoint',
  zip: 'ZIP',
  gz: 'gzip',
  tar: 'tar',
  mp4: 'video',
  mov: 'video',
  webm: 'video',
  mp3: 'audio',
  wav: 'audio',
  m4a: 'audio',
  svg: 'SVG',
  heic: 'HEIC',
  bmp: 'BMP',
  tiff: 'TIFF',
};

/** The lower-case extension of a file name (`Dockerfile` and `Makefile` count as their own). */
export function extensionOf(name: string): string {
  const base = name.split(/[\\/]/).pop()!.toLowerCase();
  if (base === 'dockerfile' || base === 'makefile') return base;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1) : '';
}

/**
 * Sorts a file into image, text or unsupported. Platforms label many files vaguely
 * (`application/octet-stream`, none at all), so the extension decides when the MIME type is not
 * specific; a specific MIME type that is neither image nor text wins over a misleading name.
 */
export function classifyAttachment(name: string, mimeType: string): AttachmentKind {
  const mime = mimeType.split(';')[0]!.trim().toLowerCase();
  const ext = extensionOf(name);
  if ((IMAGE_MIME_TYPES as readonly string[]).includes(mime)) return { kind: 'image', mimeType: mime as ImageMimeType };
  if (mime.startsWith('text/') || TEXT_MIME_TYPES.has(mime))
    return { kind: 'text', language: TEXT_EXTENSIONS[ext] ?? '' };
  const vague = mime === '' || mime === 'application/octet-stream' || mime === 'binary/octet-stream';
  if (vague && IMAGE_EXTENSIONS[ext]) return { kind: 'image', mimeType: IMAGE_EXTENSIONS[ext] };
  if (vague && ext in TEXT_EXTENSIONS) return { kind: 'text', language: TEXT_EXTENSIONS[ext]! };
  return { kind: 'unsupported', reason: unsupportedReason(ext, mime) };
}

function unsupportedReason(ext: string, mime: string): string {
  const known = KNOWN_NAMES[ext];
  if (known) return `${known} files aren't supported yet`;
  if (mime.startsWith('image/')) return `only PNG, JPEG, GIF and WebP images are supported`;
  if (ext) return `.${ext} files aren't supported yet`;
  return mime ? `files of type ${mime} aren't supported yet` : `I can't tell what kind of file it is`;
}

/**
 * The image type `bytes` really are, from their first bytes, or null when they are none of the
 * supported ones. Platforms mislabel files (a JPEG named .png); a wrong type in the data URL, or
 * bytes that are no image at all, would make the whole model request fail.
 */
export function sniffImageType(bytes: Uint8Array): ImageMimeType | null {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (
    starts(0x52, 0x49, 0x46, 0x46) &&
    bytes[8] === 0x57 &&
    bytes[9] === 0x45 &&
    bytes[10] === 0x42 &&
    bytes[11] === 0x50
  )
    return 'image/webp';
  return null;
}
