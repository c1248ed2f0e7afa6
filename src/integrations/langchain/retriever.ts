import { CallbackManager, parseCallbackConfigArg } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import { ensureConfig, type RunnableConfig } from '@langchain/core/runnables';
import { AbortError, ConfigError, throwIfAborted } from '../../errors/index.js';
import type { MetadataFilter, MetadataValue } from '../../ports/common.js';
import type { SearchHit, SearchOptions } from '../../types.js';

/** The fields of a search hit the retriever reads; `engine.search` returns them all. */
export type RetrieverHit = Pick<
  SearchHit,
  'id' | 'chunkId' | 'documentId' | 'title' | 'uri' | 'text' | 'score' | 'metadata'
>;

/**
 * The one engine method the retriever calls. A cortexis `ChatEngine` fits as is; so does any
 * object with a compatible `search`, e.g. a remote engine behind your own API.
 */
export interface SearchableEngine {
  /** Ranked hits with the whole chunk text, best first. */
  search(query: string, options?: SearchOptions): Promise<readonly RetrieverHit[]>;
}

/**
 * Metadata of a retrieved LangChain `Document`: the chunk's metadata (the document's flat
 * metadata plus `chunkIndex`, `revision`, `section`) and the fields below, which win over a
 * chunk field of the same name.
 */
export type CortexisDocumentMetadata = Record<string, MetadataValue> & {
  /** The label the hit had in the ranking: `S1`..`Sn`. */
  readonly sourceId: string;
  /** The chunk's id in the stores (also the `Document`'s `id`). */
  readonly chunkId: string;
  /** The cortexis document the chunk belongs to. */
  readonly documentId: string;
  /** Document title, when known. */
  readonly title: string | null;
  /** Where the document came from, when known. */
  readonly uri: string | null;
  /** Relevance to the query in [0, 1]. */
  readonly score: number;
};

/** Settings of {@link CortexisRetriever}. */
export interface CortexisRetrieverInput extends BaseRetrieverInput {
  /** The engine to search: a cortexis `ChatEngine` or any {@link SearchableEngine}. */
  engine: SearchableEngine;
  /** Documents to return, 1–1000 (default: the engine's route k). */
  k?: number | undefined;
  /** Only chunks whose metadata matches, e.g. `{ lang: 'en', year: { $gte: 2024 } }`. */
  filter?: MetadataFilter | undefined;
  /** Overrides the engine's search depth: `shallow` (fewer candidates, no graph), `medium`, `deep`. */
  searchDepth?: 'shallow' | 'medium' | 'deep' | undefined;
}

/**
 * A LangChain retriever over `engine.search`: each hit becomes a `Document` whose
 * `pageContent` is the whole chunk text, whose `metadata` is the chunk metadata plus
 * {@link CortexisDocumentMetadata}'s fields, and whose `id` is the chunk id. Callbacks, tags,
 * metadata and the `signal` (or `timeout`) of the run config are honoured: an aborted run
 * rejects with an `AbortError` and cancels the search.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { CortexisRetriever } from 'cortexis/langchain';
 *
 * const engine = createChatEngine();
 * const retriever = new CortexisRetriever({ engine, k: 4, filter: { lang: 'en' } });
 * const docs = await retriever.invoke('What is the refund policy?');
 * ```
 */
export class CortexisRetriever extends BaseRetriever<CortexisDocumentMetadata> {
  static override lc_name(): string {
    return 'CortexisRetriever';
  }

  override lc_namespace = ['cortexis', 'langchain'];

  /** The engine searched. */
  readonly engine: SearchableEngine;
  /** Documents to return (default: the engine's route k). */
  readonly k: number | undefined;
  /** Metadata filter applied to every search. */
  readonly filter: MetadataFilter | undefined;
  /** Search depth override. */
  readonly searchDepth: 'shallow' | 'medium' | 'deep' | undefined;

  constructor(fields: CortexisRetrieverInput) {
    super(fields);
    if (typeof fields?.engine?.search !== 'function') {
      throw new ConfigError('CortexisRetriever: engine must have a search(query, options) method', [
        { path: 'engine', message: 'expected an object with a search method' },
      ]);
    }
    if (
      fields.k !== undefined &&
      !(Number.isInteger(fields.k) && fields.k >= 1 && fields.k <= 1000)
    ) {
      throw new ConfigError('CortexisRetriever: k must be an integer from 1 to 1000', [
        { path: 'k', message: 'must be an integer from 1 to 1000' },
      ]);
    }
    this.engine = fields.engine;
    this.k = fields.k;
    this.filter = fields.filter;
    this.searchDepth = fields.searchDepth;
  }

  /**
   * Retrieves the documents for a query. `BaseRetriever.invoke` does not hand the run config's
   * signal to `_getRelevantDocuments`, so this runs the same callback protocol (retriever
   * start, end, error) itself and passes the signal on to the search.
   */
  override async invoke(
    query: string,
    options?: RunnableConfig,
  ): Promise<Document<CortexisDocumentMetadata>[]> {
    // Like `BaseRetriever.invoke`, also accept the legacy second argument: callbacks alone
    // (LangChain's own retrievers pass `runManager.getChild()`).
    const config = ensureConfig(parseCallbackConfigArg(options) as RunnableConfig);
    const callbacks = await CallbackManager.configure(
      config.callbacks,
      this.callbacks,
      config.tags,
      this.tags,
      config.metadata,
      this.metadata,
      { verbose: this.verbose ?? false },
    );
    const run = await callbacks?.handleRetrieverStart(
      this.toJSON(),
      query,
      config.runId,
      undefined,
      undefined,
      undefined,
      config.runName,
    );
    try {
      const documents = await this.#search(query, config.signal);
      await run?.handleRetrieverEnd(documents);
      return documents;
    } catch (error) {
      await run?.handleRetrieverError(error);
      throw error;
    }
  }

  /** The documents for a query, without a signal (LangChain's extension point). */
  override _getRelevantDocuments(query: string): Promise<Document<CortexisDocumentMetadata>[]> {
    return this.#search(query, undefined);
  }

  async #search(
    query: string,
    signal: AbortSignal | undefined,
  ): Promise<Document<CortexisDocumentMetadata>[]> {
    throwIfAborted(signal);
    const search = this.engine.search(query, {
      k: this.k,
      filter: this.filter,
      searchDepth: this.searchDepth,
      signal,
    });
    const hits = await (signal === undefined ? search : abortable(search, signal));
    return hits.map(toLangChainDocument);
  }
}

/**
 * A search hit as the retriever returns it: a LangChain `Document` with the whole chunk text,
 * the chunk metadata plus {@link CortexisDocumentMetadata}'s fields, and the chunk id.
 */
export function toLangChainDocument(hit: RetrieverHit): Document<CortexisDocumentMetadata> {
  return new Document<CortexisDocumentMetadata>({
    pageContent: hit.text,
    metadata: {
      ...hit.metadata,
      sourceId: hit.id,
      chunkId: hit.chunkId,
      documentId: hit.documentId,
      title: hit.title,
      uri: hit.uri,
      score: hit.score,
    },
    id: hit.chunkId,
  });
}

/** Rejects with an `AbortError` as soon as the signal fires, even if the engine ignores it. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(new AbortError('The retrieval was aborted', { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
