/**
 * `cortexis/usearch`: [usearch](https://github.com/unum-cloud/usearch), a native HNSW with SIMD
 * distances and multi-threaded batch insertion, as the approximate-nearest-neighbour index of
 * the in-memory vector store (instead of the default hnswlib-wasm). At 100,000 chunks it builds
 * the index several times faster, and its graph goes into the store's snapshot, so a restored
 * store searches the graph as soon as it is loaded. Needs the optional peer dependency
 * `usearch` (imported on first use; pass `library` to inject it). Node only.
 *
 * @example
 * ```ts
 * import { createChatEngine, createMemoryVectorStore } from 'cortexis';
 * import { usearchAnn } from 'cortexis/usearch';
 *
 * const vectorStore = createMemoryVectorStore({ ann: usearchAnn() });
 * const engine = createChatEngine({ vectorStore });
 * ```
 * @module
 */
export {
  DEFAULT_USEARCH_SETTINGS,
  usearchAnn,
  type UsearchAnn,
  type UsearchAnnIndex,
  type UsearchAnnSettings,
  type UsearchHit,
  type UsearchIndex,
  type UsearchLibrary,
  type UsearchQuantization,
} from './ann.js';
