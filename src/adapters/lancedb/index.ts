/**
 * `cortexis/lancedb`: a `VectorStore` on [LanceDB](https://lancedb.com), embedded — vectors
 * live in files in a directory (or on object storage) that several processes can share, with
 * no server. Needs the optional peer dependencies `@lancedb/lancedb` (imported on first use;
 * pass `library` or `connection` to inject it) and `apache-arrow` (to create the table).
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createLanceDbVectorStore } from 'cortexis/lancedb';
 *
 * const vectorStore = await createLanceDbVectorStore({ uri: './data/lancedb', dimensions: 384 });
 * const engine = createChatEngine({ vectorStore });
 * // … on shutdown:
 * await vectorStore.close();
 * ```
 * @module
 */
export {
  createLanceDbVectorStore,
  type LanceDbIndexOptions,
  type LanceDbVectorStore,
} from './vector-store.js';
export type { LanceDbLibrary, LanceDbVectorStoreSettings } from './settings.js';
