/**
 * The ANN side of the memory vector store: when a namespace wants a graph, its background
 * build in event-loop-friendly slices of `ann.batchSize` vectors per add (and catch-up after
 * writes, which upserts await when the index follows writes), loading a snapshot's saved index instead of starting empty when there is one, when
 * the graph may be searched, and the graph search itself — candidates re-scored exactly, plus
 * an exact look at the vectors written since the graph last caught up.
 */
import type { VectorMatch, VectorQueryOptions } from '../../ports/vector-store.js';
import { compileFilter } from '../../query/filter.js';
import type { AnnIndex } from './hnsw-index.js';
import { nonZeroComponents, scoreSlot, toMatches, TopK } from './vector-exact-search.js';
import type { ResolvedSettings } from './vector-settings.js';
import { readRow, type Ann, type SavedGraph, type Space } from './vector-space.js';

/** Yields to the event loop between build slices (setImmediate where it exists). */
function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown })
    .setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

/** A namespace's graph while it may be searched. */
export interface UsableGraph {
  readonly ann: Ann;
  readonly index: AnnIndex;
}

/** The graph operations of one store, bound to its resolved settings. */
export interface VectorGraphs {
  /** Disposes of a namespace's graph (the namespace is then searched exactly). */
  dropGraph(space: Space): void;
  /** Starts (or keeps) the background build of a namespace's graph when it wants one. */
  schedule(namespace: string, space: Space): void;
  /**
   * With an index that follows writes (`ann.followWrites`), waits until the build running for
   * the namespace has caught up, yielding to the event loop between batches; else returns.
   */
  followWrites(space: Space): Promise<void>;
  /** The graph to search, or null when the query must be exact. */
  usableGraph(space: Space): UsableGraph | null;
  /** Searches the graph; null when the query must fall back to the exact scan. */
  graphSearch(
    space: Space,
    graph: UsableGraph,
    unit: Float32Array,
    options: VectorQueryOptions,
  ): VectorMatch[] | null;
}

/** Creates the graph operations of a store with the given settings. */
export function createVectorGraphs(config: ResolvedSettings): VectorGraphs {
  const wantsGraph = (space: Space): boolean =>
    config.mode === 'hnsw' || (config.mode === 'auto' && space.size >= config.threshold);

  function dropGraph(space: Space): void {
    const ann = space.ann;
    if (!ann) return;
    ann.disposed = true;
    ann.index?.dispose();
    ann.index = null;
    space.ann = null;
  }

  /**
   * The saved index when it loads and matches the space, else null (the graph is then built
   * from the vectors: a saved index is a shortcut, never the source of truth).
   */
  async function loadSaved(space: Space, saved: SavedGraph): Promise<AnnIndex | null> {
    if (config.ann.load === undefined || saved.kind !== config.ann.kind) return null;
    try {
      const index = await config.ann.load(saved.bytes, space.dimensions);
      if (index.dimensions === space.dimensions) return index;
      index.dispose();
    } catch {
      // Unreadable (another library version, say): rebuilt below.
    }
    return null;
  }

  async function build(space: Space, ann: Ann): Promise<void> {
    if (ann.index === null) {
      const saved = ann.saved;
      ann.saved = null;
      let index = saved ? await loadSaved(space, saved) : null;
      if (index === null) {
        ann.cursor = 0;
        index = await config.ann.create(space.dimensions, space.size);
      } else {
        for (const label of ann.removed) index.remove(label);
      }
      ann.removed = [];
      if (ann.disposed) return index.dispose();
      ann.index = index;
    }
    const index = ann.index;
    const { dimensions } = space;
    let rows = new Float32Array(0);
    const labels: number[] = [];
    while (!ann.disposed && ann.cursor < space.nextLabel) {
      const deadline = performance.now() + config.sliceMs;
      do {
        // Sized by what is pending, so a catch-up of a few writes allocates a few rows.
        const batch = Math.min(config.ann.batchSize, space.nextLabel - ann.cursor);
        if (rows.length < batch * dimensions) rows = new Float32Array(batch * dimensions);
        labels.length = 0;
        while (labels.length < batch && ann.cursor < space.nextLabel) {
          const label = ann.cursor++;
          const slot = space.labelSlots.get(label);
          if (slot === undefined) continue;
          const at = labels.length * dimensions;
          readRow(space, slot, rows.subarray(at, at + dimensions));
          labels.push(label);
        }
        if (labels.length > 0) index.add(labels, rows.subarray(0, labels.length * dimensions));
      } while (ann.cursor < space.nextLabel && performance.now() < deadline);
      if (ann.cursor < space.nextLabel) await yieldToEventLoop();
    }
    if (!ann.disposed) ann.ready = true;
  }

  /** Starts (or keeps) the background build of a namespace's graph when it wants one. */
  function schedule(namespace: string, space: Space): void {
    const saved = space.saved;
    space.saved = null;
    if (!wantsGraph(space)) return;
    const ann = (space.ann ??= {
      index: null,
      cursor: saved?.cursor ?? 0,
      ready: false,
      building: null,
      error: undefined,
      disposed: false,
      saved,
      removed: [],
    });
    if (ann.building !== null || ann.error !== undefined) return;
    if (ann.index !== null && ann.cursor >= space.nextLabel) return;
    ann.building = Promise.resolve()
      .then(() => build(space, ann))
      .catch((error: unknown) => {
        ann.error = error;
        try {
          config.onIndexError?.(error, namespace);
        } catch {
          // A throwing listener must not break the store.
        }
      })
      .finally(() => {
        ann.building = null;
        // Writes during the last slice's yield are picked up by a new run.
        if (!ann.disposed && ann.error === undefined) schedule(namespace, space);
      });
  }

  async function followWrites(space: Space): Promise<void> {
    if (config.ann.followWrites !== true) return;
    // The build never rejects (a failure is kept as ann.error); it runs until caught up.
    const building = space.ann?.building;
    if (building) await building;
  }

  /** The graph to search, or null when the query must be exact. */
  function usableGraph(space: Space): UsableGraph | null {
    const ann = space.ann;
    if (!ann?.ready || ann.index === null || ann.error !== undefined) return null;
    const pending = space.nextLabel - ann.cursor;
    if (pending > Math.max(1024, space.size / 10)) return null;
    return { ann, index: ann.index };
  }

  function graphSearch(
    space: Space,
    graph: UsableGraph,
    unit: Float32Array,
    options: VectorQueryOptions,
  ): VectorMatch[] | null {
    const { k, filter } = options;
    const fetch = filter === undefined ? k : Math.max(100, Math.ceil(k * config.overfetch));
    // Asked for (nearly) everything, e.g. every chunk of some documents: a full traversal of
    // the graph would cost more than the exact scan.
    if (fetch >= space.size / 2) return null;
    const hits = graph.index.search(unit, fetch);
    const heap = new TopK(Math.min(k, space.size), space.ids);
    const nonZero = nonZeroComponents(unit);
    let matched = 0;
    const matches = filter === undefined ? null : compileFilter(filter);
    const consider = (slot: number | undefined): void => {
      if (slot === undefined) return;
      if (matches !== null && !matches(space.metadata[slot]!)) return;
      matched++;
      heap.push(slot, scoreSlot(space, slot, unit, nonZero));
    };
    for (const hit of hits) consider(space.labelSlots.get(hit.label));
    for (let label = graph.ann.cursor; label < space.nextLabel; label++) {
      consider(space.labelSlots.get(label));
    }
    // Too selective a filter for the candidates: scan exactly rather than miss matches.
    if (filter !== undefined && matched < k && hits.length >= fetch) return null;
    return toMatches(space, heap);
  }

  return { dropGraph, schedule, followWrites, usableGraph, graphSearch };
}
