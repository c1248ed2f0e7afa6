import { importOptional, type LibrarySource } from '../util/optional-import.js';
import { parseHtml, type HtmlContent } from './html.js';
import { DEFAULT_LOAD_LIMITS, type LoadLimits } from './limits.js';
import { checkZip } from './zip-check.js';

/** The part of `mammoth` the DOCX loader uses. */
export interface MammothLibrary {
  /** Converts a DOCX file to HTML. */
  convertToHtml(
    input: { buffer: Buffer },
    options?: { styleMap?: string[] },
  ): Promise<{ value: string; messages: unknown[] }>;
}

/** Word styles that mammoth does not map by itself. */
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

/**
 * A DOCX file's text (headings as `#` lines, lists as `- ` lines) via `mammoth` (an optional
 * peer). The archive is inflated within `limits.maxExpandedBytes` before mammoth opens it; a
 * file past a limit throws `LoadLimitError`.
 */
export async function parseDocx(
  bytes: Uint8Array,
  options: {
    readonly library?: LibrarySource<MammothLibrary> | undefined;
    readonly limits?: LoadLimits | undefined;
  } = {},
): Promise<HtmlContent> {
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  const mammoth = await importOptional<MammothLibrary>({
    name: 'mammoth',
    load: () => import('mammoth'),
    injected: options.library,
    neededBy: 'cortexis/loaders',
    purpose: 'for DOCX files',
    setting: 'mammoth',
  });
  checkZip(bytes, limits);
  const { value } = await mammoth.convertToHtml(
    { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    { styleMap: [...STYLE_MAP] },
  );
  return parseHtml(`<body>${value}</body>`, limits);
}
