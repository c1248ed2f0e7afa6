/** How far a file may expand while it is parsed; a file past one is skipped (`too-large`). */
export interface LoadLimits {
  /** Most bytes a compressed file (DOCX parts, PDF streams) inflates to. Default 100 MiB. */
  readonly maxExpandedBytes: number;
  /**
   * Most times its own size a DOCX (ZIP) file's entries may inflate to, once past
   * `expansionFloorBytes`: an archive past it is a bomb, skipped (`too-large`) while it is
   * inflated, before its XML is read. Default 100 (Apache POI's zip-bomb ratio; a
   * LibreOffice DOCX of a 4,000-row table inflates 57-fold, text 7–10-fold).
   */
  readonly maxExpansionRatio: number;
  /**
   * The same for a PDF: what its streams inflate to and the content the reader reads (a form
   * drawn again and again counts each time), in times the file. Default 20 (real PDFs: 0.1–5;
   * a page of cheap operators deflated, 600). Reading content costs time per byte: this bounds
   * a PDF's time per byte of file.
   */
  readonly maxPdfExpansionRatio: number;
  /**
   * What any file may expand to whatever its ratio: a file expanding to less is never refused
   * by `maxExpansionRatio` / `maxPdfExpansionRatio`. Default 1 MiB.
   */
  readonly expansionFloorBytes: number;
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
  maxExpansionRatio: 100,
  maxPdfExpansionRatio: 20,
  expansionFloorBytes: 1024 * 1024,
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

/** The limits on what a file expands to. */
export type ExpansionLimits = Pick<
  LoadLimits,
  'maxExpandedBytes' | 'maxExpansionRatio' | 'maxPdfExpansionRatio' | 'expansionFloorBytes'
>;

/** The ratio limit of a kind of file. */
export type RatioLimit = 'maxExpansionRatio' | 'maxPdfExpansionRatio';

/** What a file may expand to, and the limit that says so. */
export interface ExpansionBudget {
  readonly bytes: number;
  readonly limit: 'maxExpandedBytes' | RatioLimit;
  /** The limit's value (bytes, or times the file). */
  readonly value: number;
}

/**
 * The bytes a file of `fileBytes` may expand to: `limits[ratio]` times its size, at least
 * `expansionFloorBytes`, at most `maxExpandedBytes`.
 */
export function expansionBudget(
  fileBytes: number,
  limits: ExpansionLimits,
  ratio: RatioLimit,
): ExpansionBudget {
  const { maxExpandedBytes, expansionFloorBytes } = limits;
  const byRatio = Math.max(expansionFloorBytes, limits[ratio] * fileBytes);
  return byRatio < maxExpandedBytes
    ? { bytes: byRatio, limit: ratio, value: limits[ratio] }
    : { bytes: maxExpandedBytes, limit: 'maxExpandedBytes', value: maxExpandedBytes };
}

/** The error of a file past its budget (`what`: what expanded, with its verb: "streams inflate"). */
export function expansionError(budget: ExpansionBudget, what: string): LoadLimitError {
  const reason =
    budget.limit === 'maxExpandedBytes'
      ? `more than maxExpandedBytes (${budget.bytes} bytes)`
      : `more than ${budget.limit} (${budget.value}) times the file (${budget.bytes} bytes): a compression bomb?`;
  return new LoadLimitError(budget.limit, `${what} to ${reason}`);
}
