/**
 * Token-aware chunking that follows the document's structure: markdown headings start a new
 * chunk and give its heading path; paragraphs and code fences stay whole when they fit; an
 * oversized paragraph is split at sentences, an oversized sentence or line at tokens.
 *
 * The parts live next to this file: `chunk-structure.ts` (blocks and sections),
 * `chunk-atoms.ts` (the spans chunks are packed from); this file resolves the options and packs.
 * @module
 */
import { ValidationError } from '../errors/index.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import {
  append,
  likelyTooLong,
  sectionAtoms,
  sentenceSpans,
  type Atom,
  type Context,
} from './chunk-atoms.js';
import { parseBlocks, parseSections, type Block, type Section } from './chunk-structure.js';
import { spanCounter } from './token-count.js';

/** One chunk of a document. */
export interface TextChunk {
  /** The chunk text: exactly `source.slice(start, end)`. */
  readonly text: string;
  /** Offset of the chunk's first character in the source text. */
  readonly start: number;
  /** Offset after the chunk's last character in the source text. */
  readonly end: number;
  /** Tokens in `text`, counted by the tokenizer; never more than `chunkSize`. */
  readonly tokenCount: number;
  /** Titles of the markdown headings the chunk sits under, outermost first. */
  readonly headingPath: string[];
}

/** Options of `chunkText`. */
export interface ChunkOptions {
  /** Counts tokens (and cuts sentences longer than a chunk). */
  readonly tokenizer: Tokenizer;
  /** Most tokens in a chunk; an integer of at least 16. Default 512. */
  readonly chunkSize?: number | undefined;
  /**
   * Tokens of whole trailing sentences of the previous chunk repeated at the start of the next
   * one in the same section; an integer from 0 to below `chunkSize`. Default 64 (at most a
   * quarter of `chunkSize`).
   */
  readonly chunkOverlap?: number | undefined;
}

/** Default most tokens per chunk. */
export const DEFAULT_CHUNK_SIZE = 512;
/** Default overlap between consecutive chunks, in tokens. */
export const DEFAULT_CHUNK_OVERLAP = 64;
const MIN_CHUNK_SIZE = 16;

/** A whole sentence that can be repeated as overlap. */
interface Span {
  readonly start: number;
  readonly tokens: number;
}

/** Splits text into token-bounded chunks that respect headings, paragraphs and sentences. */
export function chunkText(text: string, options: ChunkOptions): TextChunk[] {
  const context = resolveOptions(text, options);
  const chunks: TextChunk[] = [];
  for (const section of parseSections(parseBlocks(text))) {
    append(chunks, chunkSection(section, context));
  }
  return chunks;
}

/** A markdown section of a text: from a heading (or the start) to the next heading after content. */
export interface TextSection {
  /** Offset of the section's first character. */
  readonly start: number;
  /** Offset after the section's last character. */
  readonly end: number;
  /** Titles of the headings the section sits under, its own last. */
  readonly headingPath: string[];
}

/** The text's markdown sections, in order (headings inside code fences do not count). */
export function splitSections(text: string): TextSection[] {
  const sections: TextSection[] = [];
  for (const section of parseSections(parseBlocks(text))) {
    const first = section.blocks[0];
    const last = section.blocks[section.blocks.length - 1];
    if (first && last) {
      sections.push({ start: first.start, end: last.end, headingPath: section.headingPath });
    }
  }
  return sections;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid chunk options: ${path} ${message}`, [{ path, message }]);
}

function resolveOptions(text: string, options: ChunkOptions): Context {
  const { tokenizer } = options;
  if (typeof tokenizer?.count !== 'function' || typeof tokenizer.encode !== 'function') {
    throw invalid('tokenizer', 'must be a Tokenizer');
  }
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  if (!Number.isInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE) {
    throw invalid('chunkSize', `must be an integer of at least ${MIN_CHUNK_SIZE}`);
  }
  const chunkOverlap = options.chunkOverlap ?? Math.min(DEFAULT_CHUNK_OVERLAP, chunkSize >> 2);
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw invalid('chunkOverlap', 'must be an integer from 0 to below chunkSize');
  }
  const counter = spanCounter(tokenizer);
  return {
    text,
    tokenizer,
    chunkSize,
    chunkOverlap,
    count: (start, end) => counter(text, start, end),
  };
}

// ---------------------------------------------------------------------------------------------
// Packing

function chunkSection(section: Section, context: Context): TextChunk[] {
  const { text, chunkSize } = context;
  const first = section.blocks[0];
  const last = section.blocks[section.blocks.length - 1];
  if (!first || !last) return [];
  // Most sections fit whole: count them once and be done.
  let tooLong: Block | undefined;
  if (!likelyTooLong(first.start, last.end, context)) {
    const tokenCount = context.count(first.start, last.end);
    if (tokenCount <= chunkSize) {
      return [makeChunk(text, first.start, last.end, tokenCount, section.headingPath)];
    }
    // A one-block section was just counted whole: do not count the block again.
    if (first === last) tooLong = first;
  }
  return packAtoms(sectionAtoms(section, context, tooLong), section.headingPath, context);
}

function makeChunk(
  text: string,
  start: number,
  end: number,
  tokenCount: number,
  headingPath: readonly string[],
): TextChunk {
  return { text: text.slice(start, end), start, end, tokenCount, headingPath: [...headingPath] };
}

/** Greedy packing of atoms into chunks, each verified with a real count, with overlap. */
function packAtoms(
  atoms: readonly Atom[],
  headingPath: readonly string[],
  context: Context,
): TextChunk[] {
  const { text, chunkSize } = context;
  const chunks: TextChunk[] = [];
  let overlap: Span[] = [];
  let index = 0;
  while (index < atoms.length) {
    const head = atoms[index]!;
    let overlapTokens = sumTokens(overlap);
    while (overlap.length > 0 && overlapTokens + head.join + head.tokens > chunkSize) {
      overlap = overlap.slice(1);
      overlapTokens = sumTokens(overlap);
    }
    let used = head.tokens + (overlap.length > 0 ? overlapTokens + head.join : 0);
    let next = index + 1;
    while (next < atoms.length) {
      const atom = atoms[next]!;
      if (used + atom.join + atom.tokens > chunkSize) break;
      used += atom.join + atom.tokens;
      next++;
    }
    // Token counts of concatenations are only about additive: count the chunk and shrink it
    // (first the overlap, then trailing atoms) until the real count fits.
    let tokenCount = head.tokens;
    for (;;) {
      const start = overlap[0]?.start ?? head.start;
      const end = atoms[next - 1]!.end;
      const single = overlap.length === 0 && next === index + 1;
      tokenCount = single ? head.tokens : context.count(start, end);
      if (tokenCount <= chunkSize || single) break;
      if (overlap.length > 0) overlap = overlap.slice(1);
      else next--;
    }
    const start = overlap[0]?.start ?? head.start;
    chunks.push(makeChunk(text, start, atoms[next - 1]!.end, tokenCount, headingPath));
    overlap = next < atoms.length ? trailingSentences(atoms, index, next, start, context) : [];
    index = next;
  }
  return chunks;
}

function sumTokens(spans: readonly Span[]): number {
  let total = 0;
  for (const span of spans) total += span.tokens;
  return total;
}

/**
 * Whole trailing sentences of the chunk made of `atoms[from, to)` whose tokens add up to at
 * most `chunkOverlap`; never the chunk's first sentence, never code or headings.
 */
function trailingSentences(
  atoms: readonly Atom[],
  from: number,
  to: number,
  chunkStart: number,
  context: Context,
): Span[] {
  const { text, chunkOverlap } = context;
  const spans: Span[] = [];
  let total = 0;
  for (let index = to - 1; index >= from; index--) {
    const atom = atoms[index]!;
    let candidates: { start: number; end: number; tokens?: number }[];
    if (atom.kind === 'sentence') candidates = [atom];
    else if (atom.kind === 'paragraph') candidates = sentenceSpans(text, atom.start, atom.end);
    else break;
    for (let position = candidates.length - 1; position >= 0; position--) {
      const candidate = candidates[position]!;
      if (candidate.start <= chunkStart) return spans;
      const tokens = candidate.tokens ?? context.count(candidate.start, candidate.end);
      if (total + tokens > chunkOverlap) return spans;
      total += tokens;
      spans.unshift({ start: candidate.start, tokens });
    }
  }
  return spans;
}
