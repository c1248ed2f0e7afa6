import { inflateRawSync } from 'node:zlib';
import {
  expansionBudget,
  expansionError,
  LoadLimitError,
  type ExpansionLimits,
  type LoadLimits,
} from './limits.js';

/** What a ZIP archive holds, once checked. */
export interface ZipCheck {
  /** Bytes every entry inflates to, together. */
  readonly expandedBytes: number;
  /** Paragraphs (`<w:p>` elements) of `word/document.xml`, for a DOCX file. */
  readonly paragraphs: number;
  /** The inflated bytes of the entries asked for (`keep`) that the archive holds. */
  readonly parts: ReadonlyMap<string, Buffer>;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Paragraph start tags (`<w:p>` or `<w:p `) in WordprocessingML. */
function countParagraphs(xml: Buffer, stopAfter: number): number {
  let count = 0;
  for (let at = xml.indexOf('<w:p'); at !== -1; at = xml.indexOf('<w:p', at + 4)) {
    const next = xml[at + 4];
    // '>', ' ', '/', tab, newline, carriage return
    if (
      next === 0x3e ||
      next === 0x20 ||
      next === 0x2f ||
      next === 9 ||
      next === 10 ||
      next === 13
    ) {
      if (++count > stopAfter) break;
    }
  }
  return count;
}

/**
 * Inflates every entry of a ZIP archive (a DOCX file) with a budget of `maxExpandedBytes` in
 * all and `maxExpansionRatio` times the archive (`expansionBudget`), before the parser sees it: an archive whose entries say they are small but inflate to
 * gigabytes stops at the budget (zlib's `maxOutputLength`), in the time that budget takes.
 * Throws `LoadLimitError` past the budget or `limits.maxParagraphs`, `Error` for a damaged one.
 * The entries named in `keep` are returned inflated (`parts`); the others are dropped once counted.
 */
export function checkZip(
  bytes: Uint8Array,
  limits: Pick<LoadLimits, 'maxParagraphs'> & ExpansionLimits,
  keep: ReadonlySet<string> = new Set(),
): ZipCheck {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let at = view.length - 22; at >= Math.max(0, view.length - 22 - 0xffff); at--) {
    if (view.readUInt32LE(at) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd === -1) throw new Error('not a ZIP archive (no end of central directory)');
  const entries = view.readUInt16LE(eocd + 10);
  let offset = view.readUInt32LE(eocd + 16);
  const allowed = expansionBudget(bytes.length, limits, 'maxExpansionRatio');
  const budget = allowed.bytes;
  const tooLarge = (): LoadLimitError => expansionError(allowed, 'entries inflate');
  // Sizes the entries declare: a quick refusal before any inflating.
  let declared = 0;
  const found: { method: number; size: number; local: number; name: string }[] = [];
  for (let index = 0; index < entries; index++) {
    if (offset + 46 > view.length || view.readUInt32LE(offset) !== CENTRAL) {
      throw new Error('damaged ZIP central directory');
    }
    const method = view.readUInt16LE(offset + 10);
    const size = view.readUInt32LE(offset + 20);
    const expanded = view.readUInt32LE(offset + 24);
    const nameLength = view.readUInt16LE(offset + 28);
    const extra = view.readUInt16LE(offset + 30);
    const comment = view.readUInt16LE(offset + 32);
    const local = view.readUInt32LE(offset + 42);
    if (size === 0xffffffff || expanded === 0xffffffff) throw tooLarge(); // ZIP64
    declared += expanded;
    if (declared > budget) throw tooLarge();
    const name = view.toString('latin1', offset + 46, offset + 46 + nameLength);
    found.push({ method, size, local, name });
    offset += 46 + nameLength + extra + comment;
  }
  let expandedBytes = 0;
  let paragraphs = 0;
  const parts = new Map<string, Buffer>();
  for (const entry of found) {
    const { local, size, method } = entry;
    if (local + 30 > view.length || view.readUInt32LE(local) !== LOCAL) {
      throw new Error(`damaged ZIP entry ${entry.name}`);
    }
    const start = local + 30 + view.readUInt16LE(local + 26) + view.readUInt16LE(local + 28);
    const data = view.subarray(start, start + size);
    let content: Buffer;
    if (method === 0) {
      content = data;
    } else if (method === 8) {
      try {
        content = inflateRawSync(data, { maxOutputLength: budget - expandedBytes + 1 });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
        throw new Error(`damaged ZIP entry ${entry.name}: ${(error as Error).message}`);
      }
    } else {
      throw new Error(`ZIP entry ${entry.name} uses compression method ${method}`);
    }
    expandedBytes += content.length;
    if (expandedBytes > budget) throw tooLarge();
    if (keep.has(entry.name)) parts.set(entry.name, content);
    // A caller that keeps the document counts its paragraphs itself, while it reads them.
    if (entry.name === 'word/document.xml' && !keep.has(entry.name)) {
      paragraphs = countParagraphs(content, limits.maxParagraphs);
      if (paragraphs > limits.maxParagraphs) {
        throw new LoadLimitError(
          'maxParagraphs',
          `more than maxParagraphs (${limits.maxParagraphs}) paragraphs`,
        );
      }
    }
  }
  return { expandedBytes, paragraphs, parts };
}
