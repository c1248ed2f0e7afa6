/** How far a file may expand while it is parsed; a file past one is skipped (`too-large`). */
export interface LoadLimits {
  /** Most bytes a compressed file (DOCX parts, PDF streams) inflates to. Default 100 MiB. */
  readonly maxExpandedBytes: number;
  /** Most pages of a PDF. Default 5,000. */
  readonly maxPages: number;
  /** Most paragraphs (HTML and DOCX blocks, markdown blocks). Default 200,000. */
  readonly maxParagraphs: number;
  /** Most front matter keys of a markdown file. Default 1,000. */
  readonly maxFrontMatterKeys: number;
  /** Deepest nesting of HTML elements (DOCX files become HTML). Default 500. */
  readonly maxNesting: number;
  /**
   * Most milliseconds one file's parse may take in the parse worker (Node); past it the worker
   * is terminated and the file skipped (`timeout`). Default 30,000. Not enforced when parsing
   * runs on the calling thread (`worker: false`, or an injected `unpdf` / `mammoth`).
   */
  readonly parseTimeoutMs: number;
}

/** The default limits. */
export const DEFAULT_LOAD_LIMITS: LoadLimits = {
  maxExpandedBytes: 100 * 1024 * 1024,
  maxPages: 5_000,
  maxParagraphs: 200_000,
  maxFrontMatterKeys: 1_000,
  maxNesting: 500,
  parseTimeoutMs: 30_000,
};

/** Thrown while parsing when a file goes past one of its limits. */
export class LoadLimitError extends Error {
  /** The limit passed. */
  readonly limit: keyof LoadLimits;

  constructor(limit: keyof LoadLimits, message: string) {
    super(message);
    this.name = 'LoadLimitError';
    this.limit = limit;
  }
}

/** The limits with the defaults for those not given. */
export function resolveLimits(limits: Partial<LoadLimits> | undefined): LoadLimits {
  return { ...DEFAULT_LOAD_LIMITS, ...limits };
}
