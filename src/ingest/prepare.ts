/**
 * The preparation of a group of documents for the indexes, as one pure step: documents and
 * settings in, prepared chunks out (ids, the texts to embed and to keyword-index, metadata,
 * vectors). It runs on the calling thread (`ingest.ts`) or in an ingest worker
 * (`engine/ingest-worker.ts`), which sends it back in its wire form: one `Float32Array` of
 * every vector, transferred rather than copied.
 */
import { throwIfAborted } from '../errors/index.js';
import type { Metadata } from '../ports/common.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import {
  analyzeChunk,
  CHUNK_ANALYSES,
  type ChunkAnalysis,
  type EmbedderRecipe,
} from '../text/chunk-analysis.js';
import type { LanguageSetting } from '../text/language-detection.js';
import type { IngestDocument } from '../types.js';
import {
  checkChunkerOutput,
  countedTokens,
  pageMetadata,
  tokenChunker,
  type Chunker,
  type DocumentChunk,
} from './chunkers.js';
import type { ChunkTerms } from './graph-state.js';
import { termFrequencies } from './graph-terms.js';

/** A chunk ready to index. */
export interface PreparedChunk {
  readonly id: string;
  /** Text that is embedded: title and section, then the chunk. */
  readonly indexText: string;
  /** Text that is keyword-indexed: the same, its header weighted (`HEADER_KEYWORD_WEIGHT`). */
  readonly keywordText: string;
  readonly metadata: Metadata;
  /**
   * The keyword index's terms of `keywordText` (each term's occurrences together), when an
   * ingest worker computed them for the engine's default keyword index; otherwise the index
   * analyses the text itself.
   */
  readonly keywordTerms?: readonly string[] | undefined;
  /** The graph's term frequencies of `indexText`, when an ingest worker computed them. */
  readonly graphTerms?: ChunkTerms | undefined;
}

/** What preparing a group of documents needs to know. */
export interface PrepareSettings {
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  /** Cuts each document into chunks (default: `tokenChunker()`). */
  readonly chunker?: Chunker | undefined;
}

/** A document and its prepared chunks. */
export interface PreparedDocument {
  readonly doc: IngestDocument;
  readonly chunks: PreparedChunk[];
}

/** A group of documents ready to index: their chunks, and one vector per chunk, in order. */
export interface PreparedGroup {
  readonly documents: PreparedDocument[];
  readonly vectors: Float32Array[];
}

/** Chunk id of a document's n-th chunk. */
export function chunkId(documentId: string, index: number): string {
  return `${documentId}#${index}`;
}

/**
 * How many times a chunk's header (its document's title and its section) counts in the keyword
 * index against once for its body: BM25F's field weight, written as repetition so that every
 * keyword index backend weighs it alike. SciFact train nDCG@10 by weight: 1 0.6910, 2 0.6930,
 * 3 0.6939, 4 0.6937, 5 0.6936 (`bench/quality.ts`); test at 3: 0.6807 → 0.6882.
 */
const HEADER_KEYWORD_WEIGHT = 3;

/** Texts indexed for a chunk: embedded (header once) and keyword-indexed (header weighted). */
export function indexTexts(
  title: string | undefined,
  section: string | undefined,
  text: string,
): { indexText: string; keywordText: string } {
  const header = [title, section].filter((part) => part && part.length > 0).join('\n');
  if (!header) return { indexText: text, keywordText: text };
  return {
    indexText: `${header}\n${text}`,
    keywordText: `${`${header}\n`.repeat(HEADER_KEYWORD_WEIGHT)}${text}`,
  };
}

const defaultChunker = tokenChunker();

/** One document's chunks, ready to index but not embedded. */
export async function prepareChunks(
  doc: IngestDocument,
  revision: string,
  settings: PrepareSettings,
  tokenizer: Tokenizer,
): Promise<PreparedChunk[]> {
  const chunker = settings.chunker ?? defaultChunker;
  const context = { tokenizer, chunkSize: settings.chunkSize, chunkOverlap: settings.chunkOverlap };
  const pieces = checkChunkerOutput(await chunker(doc, context), doc);
  return pieces.map((piece, index): PreparedChunk => {
    const section = (piece.headingPath ?? []).join(' › ');
    const pages =
      piece.start === undefined
        ? {}
        : pageMetadata(doc.text, piece.start, piece.end ?? piece.start + piece.text.length);
    return {
      id: chunkId(doc.id, index),
      ...indexTexts(doc.title, section, piece.text),
      metadata: {
        ...doc.metadata,
        ...pages,
        ...piece.metadata,
        documentId: doc.id,
        chunkIndex: index,
        revision,
        text: piece.text,
        ...(doc.title === undefined ? {} : { title: doc.title }),
        ...(doc.uri === undefined ? {} : { uri: doc.uri }),
        ...(section ? { section } : {}),
        ...tokenCountField(piece, tokenizer),
      },
    };
  });
}

/**
 * The chunk's `tokenCount` metadata, when the chunker counted its text exactly (the turn's
 * pack stage then does not count it again). The key is reserved (`RESERVED_METADATA_KEYS`): no
 * document or chunker sets it.
 */
function tokenCountField(piece: DocumentChunk, tokenizer: Tokenizer): Metadata {
  const tokens = countedTokens(piece);
  if (tokens === undefined) return {};
  return { [TOKEN_COUNT_KEY]: storedTokenCount(tokenizer.name, tokens) };
}

/**
 * The metadata key of a chunk's token count, written at ingest when the chunker counted the
 * chunk's text exactly: `<tokenizer name>:<count>` ({@link storedTokenCount}); the turn's pack
 * stage reads it ({@link readTokenCount}) instead of counting the chunk again.
 */
export const TOKEN_COUNT_KEY = 'tokenCount';

/** The `tokenCount` metadata value of a text `count` tokens long by the tokenizer `name`. */
export function storedTokenCount(name: string, count: number): string {
  return `${name}:${count}`;
}

/**
 * The count a chunk's `tokenCount` metadata holds when the tokenizer `name` made it;
 * `undefined` when there is none, it is malformed, or another tokenizer made it.
 */
export function readTokenCount(metadata: Metadata | undefined, name: string): number | undefined {
  const value = metadata?.[TOKEN_COUNT_KEY];
  if (typeof value !== 'string' || value.length <= name.length + 1) return undefined;
  if (value.charCodeAt(name.length) !== 58 || !value.startsWith(name)) return undefined;
  const digits = value.slice(name.length + 1);
  return /^\d{1,9}$/.test(digits) ? Number(digits) : undefined;
}

/** Every document's chunks, in order. */
export async function prepareDocuments(
  docs: readonly IngestDocument[],
  revision: string,
  settings: PrepareSettings,
  tokenizer: Tokenizer,
): Promise<PreparedDocument[]> {
  const prepared: PreparedDocument[] = [];
  for (const doc of docs) {
    prepared.push({ doc, chunks: await prepareChunks(doc, revision, settings, tokenizer) });
  }
  return prepared;
}

/**
 * One vector per text, in batches of the embedder's `maxBatchSize` (default 64). `analyse`: the
 * shared analysis of the n-th text, given to the engine's own hashing embedder
 * (`SharedChunks.analyse`), which then does not analyse the texts again.
 */
export async function embedAll(
  embedder: EmbeddingProvider,
  texts: readonly string[],
  signal: AbortSignal | undefined,
  analyse?: (index: number) => ChunkAnalysis | undefined,
): Promise<Float32Array[]> {
  const batchSize = embedder.maxBatchSize ?? 64;
  const vectors: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += batchSize) {
    throwIfAborted(signal);
    const end = start + batchSize;
    const options =
      analyse === undefined
        ? { signal }
        : { signal, [CHUNK_ANALYSES]: (index: number) => analyse(start + index) };
    // One by one: spreading a batch as arguments overflows the stack when it is large.
    for (const vector of await embedder.embed(texts.slice(start, end), options)) {
      vectors.push(vector);
    }
  }
  return vectors;
}

/** What the shared analysis of a group's chunks computes for the indexes. */
export interface SharedAnalysis {
  /** The keyword terms of the engine's default keyword index with language `'auto'`. */
  readonly keyword: boolean;
  /** The graph's term counts, read with these settings. */
  readonly graph?: { readonly characters: number; readonly minLength: number } | undefined;
}

/**
 * The characters of a chunk's header in its embedded text (`indexTexts`: the header, a line
 * break, the body), 0 without one; -1 when the texts are not of that form.
 */
function headerLength(chunk: PreparedChunk): number {
  const body = chunk.metadata.text;
  if (typeof body !== 'string') return -1;
  const { indexText, keywordText } = chunk;
  if (indexText === body) return keywordText === body ? 0 : -1;
  const header = indexText.length - body.length - 1;
  const fits =
    header > 0 &&
    keywordText.length === HEADER_KEYWORD_WEIGHT * (header + 1) + body.length &&
    indexText.charCodeAt(header) === 10;
  return fits ? header : -1;
}

/** A group's chunks analysed once each, when first asked (`shareAnalysis`). */
export interface SharedChunks {
  /**
   * The analysis of the group's n-th chunk for the embedder, made now (the embedder reads its
   * words at once: they are not kept), its keyword and graph terms kept for `documents`.
   */
  analyse(index: number): ChunkAnalysis | undefined;
  /** The documents, their chunks with the keyword and graph terms (the rest analysed now). */
  documents(): PreparedDocument[];
}

/**
 * Analyses each chunk once for the embedder, the keyword index and the graph
 * (`text/chunk-analysis.ts`), chunk by chunk as the embedder asks (so that no chunk's words
 * outlive its embedding), then the chunks the embedder did not ask for. A chunk the analysis
 * declines keeps no terms: the consumers analyse its texts themselves.
 */
export function shareAnalysis(
  documents: readonly PreparedDocument[],
  shared: SharedAnalysis,
): SharedChunks {
  const chunks = documents.flatMap((entry) => entry.chunks);
  const { graph } = shared;
  const analysed = new Uint8Array(chunks.length);
  const keywordTerms: (string[] | undefined)[] = [];
  const graphTerms: (ReadonlyMap<string, number> | undefined)[] = [];
  const analyse = (index: number): ChunkAnalysis | undefined => {
    const chunk = chunks[index];
    if (chunk === undefined) return undefined;
    const header = headerLength(chunk);
    const analysis =
      header < 0
        ? undefined
        : analyzeChunk(chunk.indexText, chunk.keywordText, header, {
            keyword: shared.keyword,
            graph,
          });
    analysed[index] = 1;
    keywordTerms[index] = analysis?.keywordTerms;
    graphTerms[index] = analysis?.graphTerms;
    return analysis;
  };
  return {
    analyse,
    documents() {
      let at = 0;
      return documents.map((entry) => ({
        doc: entry.doc,
        chunks: entry.chunks.map((chunk) => {
          const index = at++;
          if (analysed[index] === 0) analyse(index);
          const keyword = keywordTerms[index];
          const frequencies = graphTerms[index];
          if (keyword === undefined && frequencies === undefined) return chunk;
          return {
            ...chunk,
            ...(keyword === undefined ? {} : { keywordTerms: keyword }),
            ...(frequencies === undefined || graph === undefined
              ? {}
              : { graphTerms: { ...graph, frequencies } }),
          };
        }),
      }));
    },
  };
}

/**
 * A group of documents to prepare in an ingest worker: plain data only. The worker knows the
 * chunker (the default), the embedder (a hashing embedder, by `embedder`, its settings) and
 * the tokenizer (by `tokenizer`, its name) by their settings.
 */
export interface PrepareJob {
  readonly documents: readonly IngestDocument[];
  readonly revision: string;
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  /** The tokenizer's name: `cl100k_base`, `o200k_base` or `utf8-estimate`. */
  readonly tokenizer: string;
  /**
   * The settings of the hashing embedder the engine was given (`embedderRecipe`), which the
   * worker builds the same embedder from; omitted: the engine's default hashing embedder.
   */
  readonly embedder?: EmbedderRecipe | undefined;
  /**
   * The language of the engine's default keyword index, when it is the one written to: the
   * worker then computes each chunk's keyword terms as that index would.
   */
  readonly keywordLanguage?: LanguageSetting | undefined;
  /** When the engine builds a graph: the settings its chunks' term frequencies are read with. */
  readonly graphTerms?: { readonly characters: number; readonly minLength: number } | undefined;
}

/** A prepared group as it crosses the thread boundary: chunks per document, vectors flat. */
export interface PreparedWire {
  /** Per document of the job, in order, its chunks. */
  readonly chunks: PreparedChunk[][];
  /** Every chunk's vector, one after another (`dimensions` numbers each). */
  readonly vectors: Float32Array;
  readonly dimensions: number;
  /**
   * Per chunk, in order, its keyword terms and how often each occurs, U+0000 between (with
   * `keywordLanguage`): the main thread posts each term once, not once per occurrence.
   */
  readonly keywordTerms?: string[] | undefined;
  /** Per chunk, in order, its graph terms and their counts, U+0000 between (`graphTerms`). */
  readonly graphTerms?: string[] | undefined;
}

/** Prepares a job: what an ingest worker runs. */
export async function prepareJob(
  job: PrepareJob,
  tokenizer: Tokenizer,
  embedder: EmbeddingProvider,
  keywordTerms?: ((text: string) => string[]) | undefined,
): Promise<PreparedWire> {
  const settings = { chunkSize: job.chunkSize, chunkOverlap: job.chunkOverlap };
  const prepared = await prepareDocuments(job.documents, job.revision, settings, tokenizer);
  const graph = job.graphTerms;
  // The worker's embedder is a hashing embedder: one analysis of each chunk serves it, the
  // default keyword index (language 'auto') and the graph.
  const shared = shareAnalysis(prepared, {
    keyword: keywordTerms !== undefined && job.keywordLanguage === 'auto',
    graph,
  });
  const texts = prepared.flatMap((entry) => entry.chunks.map((chunk) => chunk.indexText));
  const vectors = await embedAll(embedder, texts, undefined, shared.analyse);
  const documents = shared.documents();
  const dimensions = vectors[0]?.length ?? embedder.dimensions;
  const flat = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, index) => flat.set(vector, index * dimensions));
  // The terms travel in their own lists, not in the chunks.
  const chunks = prepared.map((entry) => entry.chunks);
  const all = documents.flatMap((entry) => entry.chunks);
  // One string per chunk: far cheaper to copy across threads than an array of terms. Texts
  // hold no U+0000 (documents with one are refused), so neither do their terms.
  const terms = keywordTerms
    ? all.map((chunk) =>
        joinCounts(occurrences(chunk.keywordTerms ?? keywordTerms(chunk.keywordText))),
      )
    : undefined;
  const graphTerms = graph
    ? all.map((chunk) =>
        joinCounts(
          chunk.graphTerms?.frequencies ??
            termFrequencies(chunk.indexText.slice(0, graph.characters), graph.minLength),
        ),
      )
    : undefined;
  return {
    chunks,
    vectors: flat,
    dimensions,
    ...(terms ? { keywordTerms: terms } : {}),
    ...(graphTerms ? { graphTerms } : {}),
  };
}

const TERM_SEPARATOR = '\u0000';

/** How often each term occurs, in order of first occurrence. */
function occurrences(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/**
 * Terms and their counts in their wire form: term, count, term, count, … One flat list joined:
 * spreading the map's entries and flattening them allocated an array per term and cost an ingest
 * worker about as much as embedding (SciFact, `--cpu-prof`).
 */
function joinCounts(counts: ReadonlyMap<string, number>): string {
  const parts: (string | number)[] = [];
  for (const [term, count] of counts) parts.push(term, count);
  return parts.join(TERM_SEPARATOR);
}

/**
 * Keyword terms from their wire form: each term as often as it occurs, its occurrences
 * together (the same string, which the keyword index posts once), in order of first occurrence.
 */
function expandedTerms(joined: string): string[] {
  const terms: string[] = [];
  if (joined === '') return terms;
  const parts = joined.split(TERM_SEPARATOR);
  for (let index = 0; index + 1 < parts.length; index += 2) {
    const term = parts[index]!;
    for (let count = Number(parts[index + 1]); count > 0; count--) terms.push(term);
  }
  return terms;
}

/** Term frequencies from their wire form: term, count, term, count, … */
function countedTerms(joined: string): Map<string, number> {
  const frequencies = new Map<string, number>();
  if (joined === '') return frequencies;
  const parts = joined.split(TERM_SEPARATOR);
  for (let index = 0; index + 1 < parts.length; index += 2) {
    frequencies.set(parts[index]!, Number(parts[index + 1]));
  }
  return frequencies;
}

/** A prepared group from its wire form and the documents of its job. */
export function fromWire(
  docs: readonly IngestDocument[],
  wire: PreparedWire,
  settings?: { readonly characters: number; readonly minLength: number },
): PreparedGroup {
  const { dimensions } = wire;
  const count = wire.vectors.length / Math.max(dimensions, 1);
  const vectors: Float32Array[] = [];
  // Each vector gets a buffer of its own, as the embedder gives them: a store may keep `buffer`.
  for (let index = 0; index < count; index++) {
    vectors.push(wire.vectors.slice(index * dimensions, (index + 1) * dimensions));
  }
  const terms = wire.keywordTerms;
  const graph = wire.graphTerms;
  let at = 0;
  const withTerms = (chunk: PreparedChunk): PreparedChunk => {
    const joined = terms?.[at];
    const counted = graph?.[at];
    at++;
    if (joined === undefined && counted === undefined) return chunk;
    return {
      ...chunk,
      ...(joined === undefined ? {} : { keywordTerms: expandedTerms(joined) }),
      ...(counted === undefined || settings === undefined
        ? {}
        : { graphTerms: { ...settings, frequencies: countedTerms(counted) } }),
    };
  };
  return {
    documents: docs.map((doc, index) => ({
      doc,
      chunks: (wire.chunks[index] ?? []).map(withTerms),
    })),
    vectors,
  };
}
