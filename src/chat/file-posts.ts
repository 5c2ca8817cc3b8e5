/** A file to post into a conversation (a run's output file, a chart). */
export interface OutboundFile {
  /** The name people see (and the console saves it under); `/` only where a folder is part of the name. */
  readonly name: string;
  readonly bytes: Uint8Array;
  /** `image/png` and the other image types show inline where the platform can; anything else is an attachment. */
  readonly mimeType: string;
}

/**
 * What one post of files may carry on a platform. The core refuses a file past `maxFileBytes` with a note
 * (it is never sent), and puts the rest into as few messages as these limits allow.
 */
export interface FileLimits {
  /** The largest single file, in bytes. */
  readonly maxFileBytes: number;
  /** Most files in one message. */
  readonly maxFilesPerMessage: number;
  /** Most bytes of all the files of one message together. */
  readonly maxMessageBytes: number;
}
