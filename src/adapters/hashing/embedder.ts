/**
 * A deterministic, offline embedder: feature hashing of words (softly stemmed), adjacent
 * word pairs and character n-grams of words into a fixed-size vector. No model weights,
 * no network; similar wording gives similar vectors, which is what lexical-semantic
 * retrieval over one knowledge base needs as an offline default.
 */
import { ValidationError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { EmbeddingProvider } from '../../ports/embedding-provider.js';
import { splitContent, type SplitText } from '../../text/analyzer.js';
import {
  CHUNK_ANALYSES,
  readsChunkAnalyses,
  type ChunkAnalysis,
} from '../../text/chunk-analysis.js';
import { flatCopy } from '../../text/segment.js';

/** Settings of the hashing embedder; every one is encoded in the embedder's `id`. */
export interface HashingEmbedderSettings {
  /** Vector length (default 384). */
  readonly dimensions?: number;
  /** Weight of each (softly stemmed) word feature (default 1). */
  readonly wordWeight?: number;
  /** Weight of each adjacent word-pair feature; 0 disables pairs (default 0: pairs measured no gain). */
  readonly bigramWeight?: number;
  /** Total weight of a word's character n-grams, spread evenly over them (default 1.5). */
  readonly charWeight?: number;
  /** Shortest character n-gram, counting the `<` `>` word-boundary markers (default 3). */
  readonly minNgram?: number;
  /** Longest character n-gram (default 5). */
  readonly maxNgram?: number;
  /** Most texts per `embed` call the engine should send (default 256). */
  readonly maxBatchSize?: number;
}

/** Distinct words whose features are memoised per embedder instance. */
const WORD_CACHE_LIMIT = 200_000;
const WORD_SEED = 0x9e3779b9;
const PAIR_SEED = 0x85ebca6b;
const NGRAM_SEED = 0xc2b2ae35;

/** Final avalanche of murmur3: spreads FNV's weak low bits over the whole word. */
function mix(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** FNV-1a over `text[start, end)` with a seed, without allocating a substring. */
function hashRange(text: string, start: number, end: number, seed: number): number {
  let hash = seed >>> 0;
  for (let index = start; index < end; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash;
}

/** A light suffix-stripping stemmer: plural, -ing, -ed, -ly. Conservative on short words. */
export function softStem(word: string): string {
  const length = word.length;
  if (length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ing') && length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && length > 4) return word.slice(0, -2);
  if (word.endsWith('ly') && length > 4) return word.slice(0, -2);
  if (word.endsWith('es') && length > 4 && /(?:ch|sh|x|ss|zz)es$/.test(word)) {
    return word.slice(0, -2);
  }
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) {
    return word.slice(0, -1);
  }
  return word;
}

interface Resolved {
  readonly dimensions: number;
  readonly wordWeight: number;
  readonly bigramWeight: number;
  readonly charWeight: number;
  readonly minNgram: number;
  readonly maxNgram: number;
  readonly maxBatchSize: number;
}

function positiveInteger(value: number | undefined, fallback: number, path: string): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < 1) {
    throw new ValidationError(`${path} must be a positive integer`, [
      { path, message: 'must be a positive integer' },
    ]);
  }
  return resolved;
}

function nonNegative(value: number | undefined, fallback: number, path: string): number {
  const resolved = value ?? fallback;
  if (!(resolved >= 0) || !Number.isFinite(resolved)) {
    throw new ValidationError(`${path} must be a finite number ≥ 0`, [
      { path, message: 'must be a finite number ≥ 0' },
    ]);
  }
  return resolved;
}

function resolveSettings(settings: HashingEmbedderSettings): Resolved {
  const resolved: Resolved = {
    dimensions: positiveInteger(settings.dimensions, 384, 'dimensions'),
    wordWeight: nonNegative(settings.wordWeight, 1, 'wordWeight'),
    bigramWeight: nonNegative(settings.bigramWeight, 0, 'bigramWeight'),
    charWeight: nonNegative(settings.charWeight, 1.5, 'charWeight'),
    minNgram: positiveInteger(settings.minNgram, 3, 'minNgram'),
    maxNgram: positiveInteger(settings.maxNgram, 5, 'maxNgram'),
    maxBatchSize: positiveInteger(settings.maxBatchSize, 256, 'maxBatchSize'),
  };
  if (resolved.maxNgram < resolved.minNgram) {
    throw new ValidationError('maxNgram must be ≥ minNgram', [
      { path: 'maxNgram', message: 'must be ≥ minNgram' },
    ]);
  }
  if (resolved.wordWeight + resolved.charWeight === 0) {
    throw new ValidationError('wordWeight or charWeight must be > 0', [
      { path: 'wordWeight', message: 'wordWeight or charWeight must be > 0' },
    ]);
  }
  return resolved;
}

/** The settings id, e.g. `hashing-v1-384-w1-b0-c1.5x3-5`. */
function settingsId(settings: Resolved): string {
  const { dimensions, wordWeight, bigramWeight, charWeight, minNgram, maxNgram } = settings;
  return `hashing-v1-${dimensions}-w${wordWeight}-b${bigramWeight}-c${charWeight}x${minNgram}-${maxNgram}`;
}

/**
 * The hashed features of every word seen, in flat typed arrays: word `id`'s slot indices and
 * signed weights are `slots` / `weights` from `offsets[id]` to `offsets[id + 1]`, and
 * `stemHashes[id]` is the hash of its stem (to combine into word-pair features). One map
 * lookup per word occurrence, no object per word.
 */
class FeatureTable {
  private readonly ids = new Map<string, number>();
  offsets: Int32Array = new Int32Array(1024);
  slots: Int32Array = new Int32Array(16_384);
  weights: Float32Array = new Float32Array(16_384);
  stemHashes: Int32Array = new Int32Array(1024);
  /** Per word id, occurrences in the text being embedded (zero between texts). */
  counts: Int32Array = new Int32Array(1024);
  private size = 0;

  constructor(private readonly settings: Resolved) {}

  /** Called before each text: forgets every word once the table is full. */
  startText(): void {
    if (this.size >= WORD_CACHE_LIMIT) {
      this.ids.clear();
      this.size = 0;
    }
  }

  /** The id of a word's features, computing them on first sight. */
  idOf(word: string): number {
    const known = this.ids.get(word);
    if (known !== undefined) return known;
    const id = this.size++;
    // A copy, not a view of the text the word was cut from (which the key would keep alive).
    this.ids.set(flatCopy(word), id);
    this.compute(id, word);
    return id;
  }

  private reserve(id: number, features: number): void {
    if (id + 2 > this.offsets.length) {
      const length = Math.max(id + 2, this.offsets.length * 2);
      this.offsets = grow(this.offsets, length);
      this.stemHashes = grow(this.stemHashes, length);
      this.counts = grow(this.counts, length);
    }
    const end = this.offsets[id]! + features;
    if (end > this.slots.length) {
      const length = Math.max(end, this.slots.length * 2);
      this.slots = grow(this.slots, length);
      const weights = new Float32Array(length);
      weights.set(this.weights);
      this.weights = weights;
    }
  }

  private compute(id: number, word: string): void {
    const { dimensions, wordWeight, charWeight, minNgram, maxNgram } = this.settings;
    const stem = softStem(word);
    const stemHash = hashRange(stem, 0, stem.length, WORD_SEED);
    const marked = `<${word}>`;
    const length = marked.length;
    let count = 0;
    if (charWeight > 0) {
      for (let n = minNgram; n <= maxNgram; n++) count += Math.max(0, length - n + 1);
    }
    this.reserve(id, count + 1);
    let at = this.offsets[id]!;
    const { slots, weights } = this;
    const add = (hash: number, weight: number): void => {
      const mixed = mix(hash);
      slots[at] = mixed % dimensions;
      weights[at] = mixed & 0x80000000 ? -weight : weight;
      at++;
    };
    if (wordWeight > 0) add(stemHash, wordWeight);
    if (count > 0) {
      const weight = charWeight / Math.sqrt(count);
      for (let start = 0; start + minNgram <= length; start++) {
        let hash = hashRange(marked, start, start + minNgram - 1, NGRAM_SEED);
        for (let end = start + minNgram; end <= Math.min(length, start + maxNgram); end++) {
          hash = Math.imul(hash ^ marked.charCodeAt(end - 1), 0x01000193);
          add(hash ^ (end - start), weight);
        }
      }
    }
    this.stemHashes[id] = stemHash;
    this.offsets[id + 1] = at;
  }
}

function grow(array: Int32Array, length: number): Int32Array {
  const grown = new Int32Array(length);
  grown.set(array);
  return grown;
}

/**
 * Embeds one text: sublinear term frequency (1 + ln tf) over content words and word pairs,
 * each word contributing its stem and character n-gram features; L2-normalised. `split`: the
 * text's words as ingestion analysed them already (`text/chunk-analysis.ts`).
 */
function embedText(
  text: string,
  settings: Resolved,
  table: FeatureTable,
  split?: SplitText,
): Float32Array {
  const vector = new Float32Array(settings.dimensions);
  // Words segmented and folded, stop words of the text's language removed (`text/analyzer.ts`).
  const { words: all, content } = split ?? splitContent(text);
  const tokens = content.length > 0 ? content : all;
  if (tokens.length === 0) {
    // No words at all: a fixed unit vector, so that every text has a usable embedding.
    vector[mix(WORD_SEED) % settings.dimensions] = 1;
    return vector;
  }
  // Distinct words in order of first occurrence (the order features are added in).
  table.startText();
  const ids = new Int32Array(tokens.length);
  let distinct = 0;
  for (let index = 0; index < tokens.length; index++) {
    const id = table.idOf(tokens[index]!);
    ids[index] = id;
    if (table.counts[id]!++ === 0) ids[distinct++] = id;
  }
  const { offsets, slots, weights, counts } = table;
  for (let index = 0; index < distinct; index++) {
    const id = ids[index]!;
    const scale = 1 + Math.log(counts[id]!);
    counts[id] = 0;
    for (let at = offsets[id]!, end = offsets[id + 1]!; at < end; at++) {
      vector[slots[at]!]! += weights[at]! * scale;
    }
  }
  if (settings.bigramWeight > 0 && tokens.length > 1) {
    const pairs = new Map<number, number>();
    const { stemHashes } = table;
    let previous = stemHashes[table.idOf(tokens[0]!)]!;
    for (let index = 1; index < tokens.length; index++) {
      const current = stemHashes[table.idOf(tokens[index]!)]!;
      const pair = mix(Math.imul(previous, 31) ^ current ^ PAIR_SEED);
      pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
      previous = current;
    }
    for (const [pair, count] of pairs) {
      const weight = settings.bigramWeight * (1 + Math.log(count));
      vector[pair % settings.dimensions]! += pair & 0x80000000 ? -weight : weight;
    }
  }
  let sum = 0;
  for (let index = 0; index < vector.length; index++) sum += vector[index]! * vector[index]!;
  if (sum > 0) {
    const inverse = 1 / Math.sqrt(sum);
    for (let index = 0; index < vector.length; index++) vector[index]! *= inverse;
  }
  return vector;
}

/**
 * An offline embedder by feature hashing (signed, to cancel collision bias). Deterministic:
 * the same settings give the same vectors on every platform. Stop words count only in a
 * text made of nothing else; a text without any word gets one fixed unit vector.
 */
export function createHashingEmbedder(settings: HashingEmbedderSettings = {}): EmbeddingProvider {
  const resolved = resolveSettings(settings);
  const table = new FeatureTable(resolved);

  const embedder: EmbeddingProvider = {
    name: 'hashing',
    specificationVersion: 'v1',
    id: settingsId(resolved),
    dimensions: resolved.dimensions,
    // Measured on SciFact: unrelated texts score about 0.1, close paraphrases 0.5 and above.
    similarityRange: [0.1, 0.5],
    maxBatchSize: resolved.maxBatchSize,
    async embed(texts: readonly string[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      // Ingestion's analysis of the n-th text, when it makes them (an internal key).
      const analyse = (
        options as { [CHUNK_ANALYSES]?: (index: number) => ChunkAnalysis | undefined } | undefined
      )?.[CHUNK_ANALYSES];
      if (!Array.isArray(texts)) {
        throw new ValidationError('texts must be an array of strings', [
          { path: 'texts', message: 'must be an array of strings' },
        ]);
      }
      return texts.map((text: unknown, index) => {
        if (typeof text !== 'string') {
          throw new ValidationError(`texts.${index} must be a string`, [
            { path: `texts.${index}`, message: 'must be a string' },
          ]);
        }
        const analysis = typeof analyse === 'function' ? analyse(index) : undefined;
        return embedText(
          text,
          resolved,
          table,
          analysis !== undefined && analysis.text === text ? analysis.split : undefined,
        );
      });
    },
  };
  // Plain numbers: an ingest worker builds the same embedder from them (`engine/ingest-worker.ts`).
  readsChunkAnalyses(embedder, Object.freeze({ ...resolved }));
  return embedder;
}
