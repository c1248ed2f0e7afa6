/**
 * Claims of the grounding judge: an answer split into its sentences, each with the labels of
 * the `[source: Sx]` tags it carries (a tag opening a sentence cites the one before), and an
 * answer with some claims removed, everything else left exactly as it was. Pure.
 * @module
 */
import { splitSentences } from '../../text/sentences.js';
import { ruleOff } from './rules.js';

/** A sentence of the answer with the sources it cites. */
export interface Claim {
  /** The sentence without its citation tags. */
  readonly text: string;
  /** Offset of the sentence (with its tags) in the answer. */
  readonly start: number;
  /** Offset after the sentence (with its tags) in the answer. */
  readonly end: number;
  /** Labels the sentence cites (`S1`…), in order, without duplicates; empty when uncited. */
  readonly sourceIds: readonly string[];
}

const TAG = /\[\s*source\s*:\s*([A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*)\s*\]/gi;

/** Labels of every `[source: …]` tag in a text, in order, without duplicates. */
export function citedLabels(text: string): string[] {
  const labels = new Set<string>();
  for (const match of text.matchAll(TAG)) {
    for (const label of match[1]!.split(',')) labels.add(label.trim());
  }
  return [...labels];
}

/** A text without its citation tags, with the white space they leave behind folded. */
export function stripTags(text: string): string {
  return text
    .replace(/(?<!\s)\s*\[\s*source\s*:[^\][]*\]/gi, '')
    .replace(/(?<![ \t])[ \t]+([.!?,;:…])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/**
 * The claims of an answer: its sentences, each with the labels of its `[source: Sx]` tags.
 * A tag inside the sentence ("claim [source: S1].") or right after its end punctuation
 * ("claim. [source: S1]") belongs to it; tags at the start of the next sentence belong to the
 * sentence before. A sentence without letters or digits (markup, a lone tag) is no claim.
 */
export function extractClaims(answer: string): Claim[] {
  const claims: { text: string; start: number; end: number; sourceIds: string[] }[] = [];
  const code = ruleOff['claims.code-blocks'] ? [] : fencedRanges(answer);
  // Whether the claim before introduces a block (ends with ':'): its list items and table rows
  // are quoted from the same sources.
  let introduced: string[] | undefined;
  for (const sentence of splitSentences(answer)) {
    const previousClaim = claims[claims.length - 1];
    // A code block is no claim: it is what the sentence before it quotes.
    if (code.some(([from, to]) => sentence.start >= from && sentence.start < to)) {
      if (previousClaim) previousClaim.end = Math.max(previousClaim.end, sentence.end);
      continue;
    }
    const { start } = sentence;
    const previous = claims[claims.length - 1];
    const raw = answer.slice(start, sentence.end);
    const text = stripTags(raw);
    if (!/[\p{L}\p{N}]/u.test(text)) {
      if (previous && raw.trim().length > 0) previous.end = sentence.end;
      continue;
    }
    let sourceIds = citedLabels(raw);
    const blockLine = /^\s*(?:[-*+•]\s|\d{1,3}[.)]\s|\|)|\s\|\s/.test(raw);
    if (sourceIds.length === 0 && blockLine && introduced && !ruleOff['claims.block-citations']) {
      sourceIds = [...introduced];
    }
    if (!blockLine) introduced = /:\s*$/.test(text) && sourceIds.length > 0 ? sourceIds : undefined;
    claims.push({ text, start, end: sentence.end, sourceIds });
  }
  return claims;
}

/** The `[start, end)` ranges of the fenced code blocks of a text (an open one runs to its end). */
function fencedRanges(text: string): [number, number][] {
  if (!text.includes('```') && !text.includes('~~~')) return [];
  const ranges: [number, number][] = [];
  let open: { start: number; marker: string } | undefined;
  let position = 0;
  while (position <= text.length) {
    const newline = text.indexOf('\n', position);
    const end = newline === -1 ? text.length : newline;
    const marker = /^[ \t]*(`{3,}|~{3,})/.exec(text.slice(position, end))?.[1];
    if (marker !== undefined) {
      if (!open) open = { start: position, marker };
      else if (marker[0] === open.marker[0] && marker.length >= open.marker.length) {
        ranges.push([open.start, end]);
        open = undefined;
      }
    }
    if (newline === -1) break;
    position = newline + 1;
  }
  if (open) ranges.push([open.start, text.length]);
  return ranges;
}

/** The answer without the given claims; everything else stays exactly as it was. */
export function removeClaims(answer: string, claims: readonly Claim[]): string {
  let text = answer;
  for (const claim of [...claims].sort((a, b) => b.start - a.start)) {
    let { start, end } = claim;
    // Take the spaces after the sentence along; a sentence alone on its line takes the line.
    while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
    const lineStart = start === 0 || text[start - 1] === '\n';
    if (lineStart && text[end] === '\n') end++;
    else if (end === text.length) {
      while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start--;
    }
    text = text.slice(0, start) + text.slice(end);
  }
  return text;
}
