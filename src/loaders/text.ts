import { basename, extname } from 'node:path';
import { RESERVED_METADATA_KEYS as RESERVED_KEYS } from '../util/reserved-keys.js';

/** Metadata keys the engine sets itself on every chunk; a loader never takes them from a file. */
export const RESERVED_METADATA_KEYS: ReadonlySet<string> = new Set(RESERVED_KEYS);

/** Bytes inspected for NUL characters when deciding whether a file is binary. */
const BINARY_PROBE_BYTES = 8192;

/** Thrown by `decodeText` for content that is not text. */
export class BinaryContentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BinaryContentError';
  }
}

/**
 * Bytes as text: UTF-8 (a byte-order mark is dropped) or UTF-16 with a byte-order mark.
 * Throws `BinaryContentError` for NUL bytes or invalid UTF-8.
 */
export function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return utf16(bytes, 'utf-16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return utf16(bytes, 'utf-16be');
  // Anywhere in the file, not only its first bytes: no store can hold a NUL.
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    const where = nul < BINARY_PROBE_BYTES ? '' : ` at byte ${nul}`;
    throw new BinaryContentError(`binary content (NUL bytes${where})`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new BinaryContentError('not valid UTF-8 text');
  }
}

function utf16(bytes: Uint8Array, encoding: 'utf-16le' | 'utf-16be'): string {
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new BinaryContentError(`not valid ${encoding.toUpperCase()} text`);
  }
  const nul = text.indexOf('\u0000');
  if (nul !== -1) {
    throw new BinaryContentError(`binary content (NUL characters at character ${nul})`);
  }
  return text;
}

/** The file name without its ending. */
export function fileTitle(path: string): string {
  return basename(path, extname(path));
}

/**
 * The first markdown heading's title (the highest level first), if any. A `#` line inside a
 * fenced code block is a shell comment, not a heading (`# The parsed options will be:`).
 */
export function firstHeading(text: string): string | undefined {
  let best: { level: number; title: string } | undefined;
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      // A fence closes with a run of its own character at least as long as the opening one.
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    // The closing `#`s are removed apart: /(.+?)[ \t]*#*[ \t]*$/ backtracks over long lines.
    const match = /^ {0,3}(#{1,6})[ \t]+(.*)/.exec(line);
    if (!match) continue;
    const level = match[1]!.length;
    const title = stripClosingHashes(match[2]!);
    if (title === '') continue;
    if (!best || level < best.level) best = { level, title };
    if (level === 1) break;
  }
  return best?.title || undefined;
}

/** A heading's text without its closing `#` sequence (one preceded by a space or tab). */
function stripClosingHashes(line: string): string {
  const trimmed = line.trim();
  let end = trimmed.length;
  while (end > 0 && trimmed[end - 1] === '#') end--;
  if (end === 0) return '';
  if (end < trimmed.length && (trimmed[end - 1] === ' ' || trimmed[end - 1] === '\t')) {
    return trimmed.slice(0, end).trim();
  }
  return trimmed;
}

/** Text with runs of blank lines collapsed to one and trailing spaces removed. */
export function tidyText(text: string): string {
  // Line by line rather than /[ \t]+$/gm, which backtracks over long runs of spaces.
  return text
    .split('\n')
    .map(trimLineEnd)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function trimLineEnd(line: string): string {
  let end = line.length;
  while (end > 0) {
    const code = line.charCodeAt(end - 1);
    if (code !== 32 && code !== 9) break;
    end--;
  }
  return end === line.length ? line : line.slice(0, end);
}
