/**
 * A PDF's pages (ISO 32000-1 §7.7.3): found in one walk of the page tree, with the resources,
 * media box and crop box they inherit.
 */
import { LoadLimitError } from './limits.js';
import type { PdfDocument } from './pdf-document.js';
import {
  isDict,
  nameOf,
  PdfUnsupportedError,
  type PdfDict,
  type PdfObject,
} from './pdf-objects.js';

/** A page: its dictionary, inherited resources and visible box. */
export interface PdfPageRef {
  readonly dict: PdfDict;
  readonly resources: PdfDict;
  /** `[x0, y0, x1, y1]`: the crop box within the media box (pdf.js's `view`). */
  readonly view: readonly [number, number, number, number];
}

/** US Letter, where a page has no media box. */
const DEFAULT_VIEW: readonly [number, number, number, number] = [0, 0, 612, 792];

/**
 * Every page, in order, found in one walk of the page tree (each node of pages once: a cycle
 * or such a node reached twice declines the file; nesting past `maxNesting` too). More than
 * `maxPages` pages throws `LoadLimitError`, before the pages past it are read.
 */
export function pageList(document: PdfDocument): PdfPageRef[] {
  const { maxPages, maxNesting } = document.limits;
  const root = document.get(document.catalog(), 'Pages');
  if (!isDict(root)) throw new PdfUnsupportedError('no page tree');
  const declared = document.get(root, 'Count');
  if (typeof declared === 'number' && declared > maxPages) {
    throw new LoadLimitError('maxPages', `more than maxPages (${maxPages}) pages`);
  }
  const pages: PdfPageRef[] = [];
  const seen = new Set<PdfDict>();
  interface Node {
    readonly dict: PdfDict;
    readonly resources: PdfObject;
    readonly media: PdfObject;
    readonly crop: PdfObject;
    readonly depth: number;
  }
  const stack: Node[] = [{ dict: root, resources: null, media: null, crop: null, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { dict } = node;
    const resources = document.get(dict, 'Resources') ?? node.resources;
    const media = document.get(dict, 'MediaBox') ?? node.media;
    const crop = document.get(dict, 'CropBox') ?? node.crop;
    const kids = document.get(dict, 'Kids');
    const type = nameOf(document.get(dict, 'Type'));
    if (type === 'Page' || (type !== 'Pages' && !Array.isArray(kids))) {
      if (pages.length >= maxPages) {
        throw new LoadLimitError('maxPages', `more than maxPages (${maxPages}) pages`);
      }
      pages.push({
        dict,
        resources: isDict(resources) ? resources : new Map(),
        view: pageView(document, media, crop),
      });
      continue;
    }
    if (!Array.isArray(kids)) continue;
    // A page may be listed twice (pdf.js shows it twice); a node of pages reached again is a
    // cycle, or a tree whose pages multiply with each level.
    if (seen.has(dict)) throw new PdfUnsupportedError('a page tree node reached twice');
    seen.add(dict);
    if (node.depth >= maxNesting) throw new PdfUnsupportedError('page tree nested too deep');
    for (let index = kids.length - 1; index >= 0; index--) {
      const kid = document.fetchIf(kids[index]);
      if (!isDict(kid)) continue;
      stack.push({ dict: kid, resources, media, crop, depth: node.depth + 1 });
    }
  }
  if (typeof declared === 'number' && declared !== pages.length) {
    // pdf.js trusts `/Count`; what it makes of a wrong one is its own.
    throw new PdfUnsupportedError(`/Count ${declared} for ${pages.length} pages`);
  }
  return pages;
}

function pageView(
  document: PdfDocument,
  media: PdfObject,
  crop: PdfObject,
): readonly [number, number, number, number] {
  const box = (value: PdfObject): [number, number, number, number] | undefined => {
    if (!Array.isArray(value) || value.length !== 4) return undefined;
    const numbers = value.map((item) => document.fetchIf(item));
    if (!numbers.every((item) => typeof item === 'number')) return undefined;
    const [a, b, c, d] = numbers as number[];
    return [Math.min(a!, c!), Math.min(b!, d!), Math.max(a!, c!), Math.max(b!, d!)];
  };
  const mediaBox = box(media) ?? [...DEFAULT_VIEW];
  const cropBox = box(crop);
  if (cropBox === undefined) return mediaBox;
  const x0 = Math.max(mediaBox[0], cropBox[0]);
  const y0 = Math.max(mediaBox[1], cropBox[1]);
  const x1 = Math.min(mediaBox[2], cropBox[2]);
  const y1 = Math.min(mediaBox[3], cropBox[3]);
  return x1 - x0 > 0 && y1 - y0 > 0 ? [x0, y0, x1, y1] : mediaBox;
}
