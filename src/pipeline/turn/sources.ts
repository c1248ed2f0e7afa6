/**
 * A turn's ranked chunks as sources: labelled S1..Sn for the answer to cite, as
 * `engine.search` returns them (with the whole chunk text), and as the prompt gives them to
 * the model.
 */
import { stripSourceLists } from '../cite/source-lists.js';
import type { Source } from '../../ports/chat-records.js';
import type { PromptSource } from '../../ports/llm-provider.js';
import type { SearchHit } from '../../types.js';
import type { RetrievedChunk } from '../retrieve.js';

const SNIPPET_LENGTH = 240;

/**
 * The start of a text, cut at a word boundary, for display. Only the start of a long text is
 * flattened (twice the snippet's length, then four times when white space fills more than
 * half of that): what lies past the first `length` characters of flattened text cannot change it.
 */
export function snippet(text: string, length = SNIPPET_LENGTH): string {
  for (let window = 2 * length; window <= 4 * length; window *= 2) {
    if (text.length <= window) break;
    const start = flatten(text.slice(0, window)).trimStart();
    // A flattened start longer than `length` (a trailing space aside) begins the flattened
    // whole text, which is then longer than `length` too: the cut is the same.
    if (start.trimEnd().length > length) return cutSnippet(start, length);
  }
  const flat = flatten(text).trim();
  if (flat.length <= length) return flat;
  return cutSnippet(flat, length);
}

/** White space other than one plain space between two other characters. */
const UNFLAT = /[^\S ]| {2}/;

/** Each run of white space as one space; a text with none but single spaces as it is. */
function flatten(text: string): string {
  return UNFLAT.test(text) ? text.replace(/\s+/g, ' ') : text;
}

/** The first `length` characters of a flattened text longer than that, cut at a word. */
function cutSnippet(flat: string, length: number): string {
  const cut = flat.slice(0, length);
  const space = cut.lastIndexOf(' ');
  return `${(space > length * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A heading line or a blank line (only spaces and tabs). */
const HEADING_OR_BLANK = /^[ \t]*(?:#{1,6}(?:[ \t]|$)|$)/;

/** Whether the first line of `text` is one `snippetText` drops (a heading or a blank line). */
function startsWithDroppedLine(text: string): boolean {
  const end = text.indexOf('\n');
  return HEADING_OR_BLANK.test(end < 0 ? text : text.slice(0, end));
}

/** How far into a chunk its display snippet looks for text past headings and fences. */
const SNIPPET_SCAN = 8 * SNIPPET_LENGTH;

/**
 * The text a source's snippet is cut from: its leading headings (the section names them) and
 * code fence lines dropped; the text itself when nothing else is left.
 */
export function snippetText(text: string): string {
  const scanned = text.slice(0, SNIPPET_SCAN);
  // Most chunks open with prose and hold no fence: nothing to drop, no line to split.
  if (!startsWithDroppedLine(scanned) && !scanned.includes('```') && !scanned.includes('~~~')) {
    return scanned.trim() === '' ? text : scanned;
  }
  const lines = scanned.split('\n');
  let first = 0;
  while (first < lines.length && HEADING_OR_BLANK.test(lines[first]!)) first++;
  const readable = lines
    .slice(first)
    .filter((line) => !/^[ \t]*(?:```|~~~)/.test(line))
    .join('\n');
  return readable.trim() === '' ? text : readable;
}

/** The heading path of a chunk (`metadata.section`), or null. */
export function sectionOf(metadata: RetrievedChunk['metadata']): string | null {
  const section = metadata['section'];
  return typeof section === 'string' && section.trim() !== '' ? section : null;
}

/** A source's `section` field: present only when the chunk sits under a heading. */
function sectionField(metadata: RetrievedChunk['metadata']): { section?: string } {
  const section = sectionOf(metadata);
  return section === null ? {} : { section };
}

/** Labels ranked chunks S1..Sn as the answer cites them. */
export function toSources(chunks: readonly RetrievedChunk[]): Source[] {
  return chunks.map((chunk, index) => ({
    id: `S${index + 1}`,
    chunkId: chunk.chunkId,
    documentId: chunk.documentId,
    title: chunk.title,
    uri: chunk.uri,
    ...sectionField(chunk.metadata),
    snippet: snippet(snippetText(chunk.text)),
    score: chunk.score,
    vectorScore: chunk.vectorScore,
    keywordScore: chunk.keywordScore,
    fusedScore: chunk.fusedScore,
    type: chunk.type,
    graphBoost: chunk.graphBoost,
    learnedBoost: chunk.learnedBoost,
    graphContext: chunk.graphContext,
    metadata: chunk.metadata,
  }));
}

/** Labels ranked chunks S1..Sn as `engine.search` returns them: sources with the whole chunk text. */
export function toSearchHits(chunks: readonly RetrievedChunk[]): SearchHit[] {
  return toSources(chunks).map((source, index) => ({ ...source, text: chunks[index]!.text }));
}

/** The sources as the prompt gives them to the model. */
export function toPromptSources(
  chunks: readonly RetrievedChunk[],
  sources: readonly Source[],
): PromptSource[] {
  return chunks.map((chunk, index) => ({
    label: sources[index]!.id,
    // A "Sources:" list in a document is not shown to the model (it could pass it on as ours).
    text: stripSourceLists(chunk.text),
    title: chunk.title ?? undefined,
    ...(typeof chunk.metadata?.section === 'string' ? { section: chunk.metadata.section } : {}),
  }));
}
