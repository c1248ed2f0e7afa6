import {
  expansionBudget,
  expansionError,
  LoadLimitError,
  type ExpansionLimits,
  type LoadLimits,
} from './limits.js';
import { inflateWithin } from './pdf-filters.js';

/**
 * Page objects (`/Type /Page`) written in the file's own bytes: a PDF of more than `maxPages`
 * is refused before pdf.js parses it (pdf.js took seconds to open 20,000 pages). Pages inside
 * compressed object streams are not seen here; pdf.js's page count catches those.
 */
export function checkPdfPages(bytes: Uint8Array, limits: Pick<LoadLimits, 'maxPages'>): void {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pages = 0;
  for (let at = view.indexOf('/Type'); at !== -1; at = view.indexOf('/Type', at + 5)) {
    let next = at + 5;
    while (
      next < view.length &&
      (view[next] === 0x20 || view[next] === 0x0a || view[next] === 0x0d)
    ) {
      next++;
    }
    // `/Page` not followed by a name character (`/Pages`)
    if (view.toString('latin1', next, next + 5) !== '/Page') continue;
    const after = view[next + 5];
    if (after !== undefined && /[A-Za-z0-9]/.test(String.fromCharCode(after))) continue;
    if (++pages > limits.maxPages) {
      throw new LoadLimitError('maxPages', `more than maxPages (${limits.maxPages}) pages`);
    }
  }
}

/** How far back from `stream` its dictionary is looked for. */
const DICTIONARY_WINDOW = 2048;

/**
 * Inflates the compressed streams of a PDF (all but images, which text extraction never
 * decodes) with a budget of `maxExpandedBytes` in all, and `maxExpansionRatio` times the file
 * (`expansionBudget`), before pdf.js parses the file: a small file whose streams inflate to
 * hundreds of megabytes stops at the budget. Returns the bytes
 * inflated; throws `LoadLimitError` past the budget. Streams that are not zlib data are left
 * to pdf.js.
 */
export function checkPdfStreams(bytes: Uint8Array, limits: ExpansionLimits): number {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const allowed = expansionBudget(bytes.length, limits, 'maxPdfExpansionRatio');
  const budget = allowed.bytes;
  let expanded = 0;
  let at = view.indexOf('stream');
  while (at !== -1) {
    let start = at + 6;
    if (view[start] === 0x0d) start++;
    if (view[start] !== 0x0a || (at >= 3 && view.toString('latin1', at - 3, at) === 'end')) {
      at = view.indexOf('stream', at + 6);
      continue;
    }
    start++;
    const end = view.indexOf('endstream', start);
    if (end === -1) break;
    const dictionary = view.toString('latin1', Math.max(0, at - DICTIONARY_WINDOW), at);
    const own = dictionary.slice(dictionary.lastIndexOf('obj') + 1);
    if (own.includes('/FlateDecode') && !own.includes('/Image')) {
      try {
        expanded +=
          inflateWithin(view.subarray(start, end), budget - expanded)?.length ?? budget + 1;
      } catch {
        // Damaged, or another filter first: pdf.js decides.
      }
      if (expanded > budget) {
        throw expansionError(allowed, 'streams inflate');
      }
    }
    at = view.indexOf('stream', end + 9);
  }
  return expanded;
}
