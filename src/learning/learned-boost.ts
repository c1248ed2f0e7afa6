/**
 * The learned rerank boost: feedback on (query, chunk) pairs makes that chunk rank higher
 * (helpful) or lower (unhelpful) for *similar* future queries, fading with time. Pure
 * TypeScript, bounded memory; one instance per namespace (tenant).
 *
 * @example
 * ```ts
 * const learned = createLearnedBoost();
 * learned.record({ queryVector, chunkId: 'doc-1#0', signal: 1 });
 * retrieve(query, { ...deps, learnedBoost: learned.boost }, options);
 * ```
 */
import { ValidationError } from '../errors/index.js';
import { isFloat32Array } from '../util/realm.js';

/** Settings of `createLearnedBoost`. */
export interface LearnedBoostSettings {
  /**
   * Query cosine similarity at or below which past feedback does not apply (default
   * `DEFAULT_SIMILARITY_FLOOR`); above it an event weighs (cos − floor) / (1 − floor).
   */
  readonly similarityFloor?: number | undefined;
  /** Half-life of a feedback event in ms (default 30 days). */
  readonly halfLifeMs?: number | undefined;
  /** Boost added per unit of weighted signal: boost = 1 + gain × Σ (default `DEFAULT_GAIN`). */
  readonly gain?: number | undefined;
  /** Lowest boost (default 0.5). */
  readonly min?: number | undefined;
  /** Highest boost (default 2). */
  readonly max?: number | undefined;
  /** Events kept per chunk; the oldest go first (default 64). */
  readonly maxEventsPerChunk?: number | undefined;
  /** Events kept in total; the oldest go first (default 100,000). */
  readonly maxEvents?: number | undefined;
  /** Clock in ms since the epoch (default `Date.now`); injectable for tests. */
  readonly now?: (() => number) | undefined;
}

/** One piece of feedback on a chunk for a query. */
export interface LearnedBoostEvent {
  /** Embedding of the query the chunk was shown for. */
  readonly queryVector: Float32Array;
  /** The chunk rated. */
  readonly chunkId: string;
  /** How helpful it was, in [−1, 1]: positive raises, negative lowers. */
  readonly signal: number;
  /** When, in ms since the epoch (default now). */
  readonly at?: number | undefined;
  /** Whose feedback it is, so that `forgetUser` can erase it (optional). */
  readonly userId?: string | undefined;
}

/** A learned boost model; `boost` fits `RetrievalDeps.learnedBoost`. */
export interface LearnedBoostModel {
  /** Stores a feedback event; throws `ValidationError` (and stores nothing) on bad input. */
  record(event: LearnedBoostEvent): void;
  /** Multiplier in [min, max] for a chunk and a query (1 without applicable feedback). */
  boost(chunkId: string, queryVector: Float32Array): number;
  /** Number of stored events. */
  readonly size: number;
  /** Forgets every event. */
  clear(): void;
  /** Forgets the events recorded with this `userId`; returns how many. */
  forgetUser(userId: string): number;
}

/**
 * Default similarity floor. The hashing embedder gives ~0.1 for unrelated queries and ≥ 0.5
 * for paraphrases, so feedback carries to rewordings only. Tuned on SciFact train
 * (bench/learning.ts --sweep): feedback on one half of the train claims lifts the other half
 * at every floor from 0.2 to 0.7 (+0.036 nDCG@10 at 0.5, +0.042 at 0.3); 0.5 keeps to
 * paraphrases at a small cost.
 */
export const DEFAULT_SIMILARITY_FLOOR = 0.5;

/**
 * Default gain: one fully helpful event on the same query doubles the chunk's fused score
 * (the clamp), one unhelpful event halves it, and a reworded query (cos 0.6) gets +0.4.
 * Tuned on SciFact train: the claims asked again gain +0.088 nDCG@10 at gain 2 (+0.088 at 1,
 * +0.075 at 0.5) and the held-out train half +0.036 (+0.030 at 1).
 */
export const DEFAULT_GAIN = 2;

/** Default half-life of feedback: 30 days. */
export const DEFAULT_HALF_LIFE_MS = 30 * 24 * 60 * 60 * 1000;

interface StoredEvent {
  readonly chunkId: string;
  readonly vector: Float32Array;
  readonly norm: number;
  readonly signal: number;
  readonly at: number;
  readonly userId: string | undefined;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid learned boost ${path}: ${message}`, [{ path, message }]);
}

function norm(vector: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < vector.length; index++) sum += vector[index]! * vector[index]!;
  return Math.sqrt(sum);
}

/** Cosine similarity of two vectors of the same length with known norms (0 when one is zero). */
function cosine(a: Float32Array, aNorm: number, b: Float32Array, bNorm: number): number {
  if (aNorm === 0 || bNorm === 0) return 0;
  let dot = 0;
  for (let index = 0; index < a.length; index++) dot += a[index]! * b[index]!;
  return dot / (aNorm * bNorm);
}

/** Weight of a past query for this one: 0 at or below the floor, rising linearly to 1 at cos 1. */
export function similarityWeight(cos: number, floor: number): number {
  if (!(cos > floor)) return 0;
  return Math.min(1, (cos - floor) / (1 - floor));
}

/** Weight of an event of age `ageMs`: 0.5^(age / halfLife); future events count fully. */
export function decayWeight(ageMs: number, halfLifeMs: number): number {
  return ageMs <= 0 ? 1 : 0.5 ** (ageMs / halfLifeMs);
}

function checkSettings(settings: LearnedBoostSettings): void {
  const { similarityFloor, halfLifeMs, gain, min, max, maxEventsPerChunk, maxEvents } = settings;
  if (similarityFloor !== undefined && !(similarityFloor >= -1 && similarityFloor < 1)) {
    throw invalid('similarityFloor', 'must be in [-1, 1)');
  }
  if (halfLifeMs !== undefined && !(halfLifeMs > 0)) throw invalid('halfLifeMs', 'must be > 0');
  if (gain !== undefined && !(Number.isFinite(gain) && gain >= 0)) {
    throw invalid('gain', 'must be finite and ≥ 0');
  }
  const low = min ?? 0.5;
  const high = max ?? 2;
  if (!(low > 0 && low <= 1)) throw invalid('min', 'must be in (0, 1]');
  if (!(Number.isFinite(high) && high >= 1)) throw invalid('max', 'must be finite and ≥ 1');
  for (const [path, value] of [
    ['maxEventsPerChunk', maxEventsPerChunk],
    ['maxEvents', maxEvents],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      throw invalid(path, 'must be a positive integer');
    }
  }
}

function checkEvent(event: LearnedBoostEvent): void {
  if (typeof event !== 'object' || event === null) throw invalid('event', 'must be an object');
  if (typeof event.chunkId !== 'string' || event.chunkId.length === 0) {
    throw invalid('chunkId', 'must be a non-empty string');
  }
  if (!isFloat32Array(event.queryVector) || event.queryVector.length === 0) {
    throw invalid('queryVector', 'must be a non-empty Float32Array');
  }
  if (!Number.isFinite(norm(event.queryVector))) {
    throw invalid('queryVector', 'must hold finite numbers');
  }
  if (!(typeof event.signal === 'number' && event.signal >= -1 && event.signal <= 1)) {
    throw invalid('signal', 'must be a number in [-1, 1]');
  }
  if (event.at !== undefined && !Number.isFinite(event.at)) {
    throw invalid('at', 'must be a finite number of ms');
  }
  if (event.userId !== undefined && typeof event.userId !== 'string') {
    throw invalid('userId', 'must be a string');
  }
}

/**
 * Creates a learned boost: `boost(chunk, query)` = clamp(1 + gain × Σ signal × simWeight ×
 * decay, min, max) over the chunk's stored events, where simWeight maps the cosine of the
 * event's query to this query to [0, 1] above `similarityFloor` and decay halves every
 * `halfLifeMs`. Memory is bounded per chunk and in total (oldest events evicted first).
 */
export function createLearnedBoost(settings: LearnedBoostSettings = {}): LearnedBoostModel {
  checkSettings(settings);
  const floor = settings.similarityFloor ?? DEFAULT_SIMILARITY_FLOOR;
  const halfLife = settings.halfLifeMs ?? DEFAULT_HALF_LIFE_MS;
  const gain = settings.gain ?? DEFAULT_GAIN;
  const min = settings.min ?? 0.5;
  const max = settings.max ?? 2;
  const perChunk = settings.maxEventsPerChunk ?? 64;
  const total = settings.maxEvents ?? 100_000;
  const now = settings.now ?? Date.now;

  const byChunk = new Map<string, StoredEvent[]>();
  // Every stored event in insertion order, for the global eviction.
  const order = new Set<StoredEvent>();

  const remove = (event: StoredEvent): void => {
    order.delete(event);
    const events = byChunk.get(event.chunkId);
    if (events === undefined) return;
    const index = events.indexOf(event);
    if (index >= 0) events.splice(index, 1);
    if (events.length === 0) byChunk.delete(event.chunkId);
  };

  return {
    record(event) {
      checkEvent(event);
      const vector = Float32Array.from(event.queryVector);
      const stored: StoredEvent = {
        chunkId: event.chunkId,
        vector,
        norm: norm(vector),
        signal: event.signal,
        userId: event.userId,
        at: event.at ?? now(),
      };
      let events = byChunk.get(stored.chunkId);
      if (events === undefined) {
        events = [];
        byChunk.set(stored.chunkId, events);
      }
      events.push(stored);
      order.add(stored);
      while (events.length > perChunk) remove(events[0]!);
      while (order.size > total) remove(order.values().next().value!);
    },

    boost(chunkId, queryVector) {
      const events = byChunk.get(chunkId);
      if (events === undefined) return 1;
      const queryNorm = norm(queryVector);
      const time = now();
      let sum = 0;
      for (const event of events) {
        if (event.vector.length !== queryVector.length) continue; // another embedder's vector
        const weight = similarityWeight(
          cosine(event.vector, event.norm, queryVector, queryNorm),
          floor,
        );
        if (weight === 0) continue;
        sum += event.signal * weight * decayWeight(time - event.at, halfLife);
      }
      const value = 1 + gain * sum;
      return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : 1;
    },

    get size() {
      return order.size;
    },

    forgetUser(userId) {
      const owned = [...order].filter((event) => event.userId === userId);
      for (const event of owned) remove(event);
      return owned.length;
    },
    clear() {
      byChunk.clear();
      order.clear();
    },
  };
}

/** A source as stored with an answer: its label and its chunk. */
export interface FeedbackSource {
  /** The label the answer cites (`S1`..`Sn`). */
  readonly id: string;
  /** The chunk's id in the stores. */
  readonly chunkId: string;
}

/** Boost signal of a rating without per-source helpfulness, per source. */
const RATING_SIGNAL = { good: 0.5, neutral: 0, bad: -0.5 } as const;

/**
 * Turns feedback on an answer into boost signals per chunk. With a helpfulness h in [0, 1]
 * for a source (keyed by its label, or by its chunk id), that source gets 2h − 1 and
 * unrated sources get nothing; without any helpfulness, every given source gets the
 * rating's signal (good +0.5, neutral 0, bad −0.5) — pass the cited sources when the answer
 * cited some. Throws `ValidationError` naming the field for a helpfulness outside [0, 1].
 */
export function feedbackSignals(
  sources: readonly FeedbackSource[],
  sourceHelpfulness: Readonly<Record<string, number>> | null | undefined,
  rating: 'good' | 'neutral' | 'bad',
): { chunkId: string; signal: number }[] {
  const rated = sourceHelpfulness ?? {};
  const helpfulness = Object.entries(rated);
  for (const [label, value] of helpfulness) {
    if (!(typeof value === 'number' && value >= 0 && value <= 1)) {
      throw invalid(`sourceHelpfulness.${label}`, 'must be in [0, 1]');
    }
  }
  if (!(rating in RATING_SIGNAL)) throw invalid('rating', "must be 'good', 'neutral' or 'bad'");
  const seen = new Set<string>();
  const signals: { chunkId: string; signal: number }[] = [];
  for (const source of sources) {
    if (seen.has(source.chunkId)) continue;
    let signal: number | undefined;
    if (helpfulness.length === 0) {
      signal = RATING_SIGNAL[rating];
    } else {
      const key = [source.id, source.chunkId].find((name) => Object.hasOwn(rated, name));
      if (key !== undefined) signal = 2 * rated[key]! - 1;
    }
    if (signal === undefined) continue;
    seen.add(source.chunkId);
    signals.push({ chunkId: source.chunkId, signal });
  }
  return signals;
}
