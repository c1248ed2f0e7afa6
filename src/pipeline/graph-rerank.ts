/**
 * Graph rerank — the "GNN boost" of seed 000, which is not a neural network: it is one or two
 * rounds of score propagation over the knowledge graph. Each candidate chunk collects the
 * scores of the other candidates it is connected to (through its document, a shared salient
 * term or a citation), weighted by the path; chunks that the rest of the evidence points at
 * gain up to 2×, isolated ones stay at 1×.
 *
 * support(c) = 1 − exp(−Σ s(c′) · a(c, c′)) over connected candidates c′ ≠ c, where s is the
 * candidate score relative to the best (in [0, 1]) and a = path weight / (path depth − 1);
 * graphBoost(c) = 1 + support(c) ∈ [1, 2]. A second round repeats it with
 * s(c) · graphBoost(c) as the scores.
 */
import { throwIfAborted } from '../errors/index.js';
import { chunkNodeId } from '../query/graph-model.js';
import type { GraphStore } from '../ports/graph-store.js';

/** A chunk reached from another through the graph. */
export interface GraphLink {
  /** The chunk id reached (from a `chunk` node), or null for a document node. */
  readonly chunkId: string | null;
  /** The document id of the node reached. */
  readonly documentId: string;
  /** Edges on the shortest path. */
  readonly depth: number;
  /** Product of edge weights along the path. */
  readonly weight: number;
}

/** Options of a neighbourhood collection. */
export interface NeighborhoodOptions {
  /** Namespace walked. */
  readonly namespace: string;
  /** Edges walked from each chunk node. */
  readonly depth: number;
  /** Edge types followed (all when omitted). */
  readonly edgeTypes?: readonly string[] | undefined;
  /** Most nodes reached per chunk (default 100). */
  readonly limit?: number | undefined;
  /** Cancels the walk. */
  readonly signal?: AbortSignal | undefined;
}

/** Chunk id → the chunks and documents reachable from it (terms are walked through, not kept). */
export type Neighborhoods = ReadonlyMap<string, readonly GraphLink[]>;

/** Walks the graph around each chunk; a chunk without a graph node has no links. */
export async function collectNeighborhoods(
  graphStore: GraphStore,
  chunkIds: readonly string[],
  options: NeighborhoodOptions,
): Promise<Map<string, GraphLink[]>> {
  const result = new Map<string, GraphLink[]>();
  await Promise.all(
    chunkIds.map(async (chunkId) => {
      const reached = await graphStore.neighbors(options.namespace, chunkNodeId(chunkId), {
        depth: options.depth,
        edgeTypes: options.edgeTypes,
        limit: options.limit ?? 50,
        signal: options.signal,
      });
      const links: GraphLink[] = [];
      for (const { node, depth, weight } of reached) {
        const documentId = node.properties.documentId;
        if (typeof documentId !== 'string') continue;
        const chunk = node.type === 'chunk' ? node.properties.chunkId : null;
        if (node.type !== 'chunk' && node.type !== 'document') continue;
        links.push({
          chunkId: typeof chunk === 'string' ? chunk : null,
          documentId,
          depth,
          weight,
        });
      }
      result.set(chunkId, links);
    }),
  );
  throwIfAborted(options.signal);
  return result;
}

/** Strength of a chunk-to-chunk link: path weight over the hops beyond the first. */
export function linkStrength(link: Pick<GraphLink, 'depth' | 'weight'>): number {
  return link.weight / Math.max(1, link.depth - 1);
}

/** One chunk's result. */
export interface GraphBoost {
  /** Multiplier in [1, 2] (1 = no graph support). */
  readonly graphBoost: number;
  /** Graph support in [0, 1]. */
  readonly support: number;
  /** Chunks and documents reached around it. */
  readonly relatedNodeCount: number;
}

/**
 * Score propagation over the candidates' neighbourhoods (see the module comment). `scores`
 * are the candidates' scores before the boost (any non-negative scale); `rounds` is 1 or 2.
 */
export function propagateScores(
  scores: ReadonlyMap<string, number>,
  neighborhoods: Neighborhoods,
  rounds = 2,
): Map<string, GraphBoost> {
  let current = normalized(scores);
  let support = new Map<string, number>();
  for (let round = 0; round < Math.max(1, Math.min(2, rounds)); round++) {
    support = new Map();
    for (const [chunkId] of current) {
      let mass = 0;
      const seen = new Set<string>();
      for (const link of neighborhoods.get(chunkId) ?? []) {
        if (link.chunkId === null || link.chunkId === chunkId || seen.has(link.chunkId)) continue;
        seen.add(link.chunkId);
        const neighbor = current.get(link.chunkId);
        if (neighbor !== undefined) mass += neighbor * linkStrength(link);
      }
      support.set(chunkId, 1 - Math.exp(-mass));
    }
    current = normalized(
      new Map([...current].map(([id, score]) => [id, score * (1 + (support.get(id) ?? 0))])),
    );
  }
  return new Map(
    [...scores.keys()].map((id) => {
      const value = support.get(id) ?? 0;
      return [
        id,
        {
          graphBoost: 1 + value,
          support: value,
          relatedNodeCount: neighborhoods.get(id)?.length ?? 0,
        },
      ];
    }),
  );
}

function normalized(scores: ReadonlyMap<string, number>): Map<string, number> {
  let best = 0;
  for (const value of scores.values()) if (value > best) best = value;
  return new Map([...scores].map(([id, value]) => [id, best > 0 && value > 0 ? value / best : 0]));
}

/**
 * Graph support of the sources an answer uses, for the confidence's graph factor: the mean
 * of their graph boosts minus 1, in [0, 1]. Undefined for no sources.
 */
export function graphSupport(boosts: readonly number[]): number | undefined {
  if (boosts.length === 0) return undefined;
  const mean = boosts.reduce((sum, boost) => sum + (boost - 1), 0) / boosts.length;
  return Math.min(1, Math.max(0, mean));
}

/**
 * Scores of chunks and documents reached from the candidates but not among them: each adds
 * the reaching candidate's relative score × link strength. Best first; the graph list fused
 * by retrieval.
 */
export function expansionScores(
  scores: ReadonlyMap<string, number>,
  neighborhoods: Neighborhoods,
): { key: string; link: GraphLink; score: number; from: string }[] {
  const relative = normalized(scores);
  const reached = new Map<string, { key: string; link: GraphLink; score: number; from: string }>();
  for (const [from, links] of neighborhoods) {
    const seed = relative.get(from) ?? 0;
    if (seed <= 0) continue;
    for (const link of links) {
      if (link.chunkId !== null && scores.has(link.chunkId)) continue;
      const key = link.chunkId ?? `document:${link.documentId}`;
      const add = seed * linkStrength(link);
      const known = reached.get(key);
      if (known === undefined) reached.set(key, { key, link, score: add, from });
      else {
        const better = link.depth < known.link.depth;
        reached.set(key, {
          key,
          link: better ? link : known.link,
          score: known.score + add,
          from: better ? from : known.from,
        });
      }
    }
  }
  return [...reached.values()].sort(
    (a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}
