import type { MetadataValue } from '../ports/common.js';
import type { LibrarySource } from '../util/optional-import.js';
import { parseDocx, type MammothLibrary } from './docx.js';
import { parseHtml } from './html.js';
import type { LoadLimits } from './limits.js';
import { parseMarkdown } from './markdown.js';
import { PAGE_BREAK, parsePdf, type UnpdfLibrary } from './pdf.js';
import {
  parseJsonLines,
  parseJsonRecords,
  type RecordFields,
  type RecordResult,
} from './records.js';
import { decodeText, firstHeading } from './text.js';

/** A kind of file the parsers read (the values of `FILE_TYPES`). */
export type ParsedFileType = 'markdown' | 'text' | 'html' | 'pdf' | 'docx' | 'json' | 'jsonl';

/** What parsing one file's bytes gave: one text, or records. Plain data: it crosses a worker. */
export type Parsed =
  | {
      readonly kind: 'single';
      readonly text: string;
      readonly title: string | undefined;
      readonly metadata: Record<string, MetadataValue>;
    }
  | { readonly kind: 'records'; readonly records: RecordResult[] };

/** One file to parse. Plain data: it crosses a worker. */
export interface ParseJob {
  readonly fileType: ParsedFileType;
  readonly bytes: Uint8Array;
  readonly limits: LoadLimits;
  readonly fields: RecordFields;
}

/** Libraries a caller injected: functions and modules, which cannot cross into a worker. */
export interface ParseLibraries {
  readonly unpdf?: LibrarySource<UnpdfLibrary> | undefined;
  readonly mammoth?: LibrarySource<MammothLibrary> | undefined;
}

function single(
  text: string | undefined,
  content: {
    readonly text?: string;
    readonly title: string | undefined;
    readonly metadata: Record<string, MetadataValue>;
  },
): Parsed {
  const { title, metadata } = content;
  return { kind: 'single', text: text ?? content.text ?? '', title, metadata };
}

/**
 * Parses a file's bytes by its type: the CPU-heavy part of loading, run in the parse worker
 * (`parse-worker.ts`) or, without one, on the calling thread. Throws what the parsers throw
 * (`LoadLimitError`, `BinaryContentError`, `ConfigError` for a missing peer, parse errors).
 */
export async function parseBytes(job: ParseJob, libraries: ParseLibraries = {}): Promise<Parsed> {
  const { fileType, bytes, limits, fields } = job;
  switch (fileType) {
    case 'pdf': {
      const pdf = await parsePdf(bytes, { library: libraries.unpdf, limits });
      return single(pdf.pages.join(PAGE_BREAK), pdf);
    }
    case 'docx':
      return single(undefined, await parseDocx(bytes, { library: libraries.mammoth, limits }));
    default:
      break;
  }
  const source = decodeText(bytes);
  switch (fileType) {
    case 'markdown':
      return single(undefined, parseMarkdown(source, limits));
    case 'html':
      return single(undefined, parseHtml(source, limits));
    case 'json':
      return { kind: 'records', records: parseJsonRecords(source, fields) };
    case 'jsonl':
      return { kind: 'records', records: parseJsonLines(source, fields) };
    case 'text':
      return { kind: 'single', text: source.trim(), title: firstHeading(source), metadata: {} };
  }
}
