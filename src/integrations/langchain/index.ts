/**
 * `cortexis/langchain`: use a cortexis engine from LangChain.js, and LangChain documents in
 * cortexis. {@link CortexisRetriever} is a `BaseRetriever` over `engine.search` returning the
 * whole chunk text and its metadata; {@link fromLangChainDocuments} turns LangChain
 * `Document`s (from any loader or text splitter) into documents for `engine.ingest`.
 *
 * Needs `@langchain/core` (an optional peer dependency, 0.3 or 1.x) installed next to
 * cortexis; the core entry never loads it.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { CortexisRetriever, fromLangChainDocuments } from 'cortexis/langchain';
 * import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables';
 *
 * const engine = createChatEngine();
 * await engine.ingest(fromLangChainDocuments(await splitter.splitDocuments(docs)));
 *
 * const retriever = new CortexisRetriever({ engine, k: 4 });
 * const chain = RunnableSequence.from([
 *   retriever,
 *   RunnableLambda.from((found) => found.map((doc) => doc.pageContent).join('\n\n')),
 *   // … a prompt template and a chat model
 * ]);
 * const context = await chain.invoke('What is the refund policy?');
 * ```
 * @module
 */
export {
  CortexisRetriever,
  toLangChainDocument,
  type CortexisDocumentMetadata,
  type CortexisRetrieverInput,
  type RetrieverHit,
  type SearchableEngine,
} from './retriever.js';
export {
  flattenMetadata,
  fromLangChainDocuments,
  type FromLangChainDocumentsOptions,
  type LangChainDocumentLike,
} from './documents.js';
