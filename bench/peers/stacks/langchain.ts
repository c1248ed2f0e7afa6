/**
 * LangChain.js 1.x, as its RAG tutorial builds it: `RecursiveCharacterTextSplitter` (1000
 * characters, 200 overlap), `MemoryVectorStore` (moved to `@langchain/classic` in 1.0) and an
 * LCEL chain: retriever → formatted context → `ChatPromptTemplate` with the history → chat
 * model → `StringOutputParser`, wrapped in `RunnableWithMessageHistory` for conversations.
 * The chat model is LangChain's own `FakeListChatModel` (no delay).
 */
import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory';
import { InMemoryChatMessageHistory } from '@langchain/core/chat_history';
import { Document, type DocumentInterface } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import {
  RunnablePassthrough,
  RunnableSequence,
  RunnableWithMessageHistory,
} from '@langchain/core/runnables';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import type { EmbeddingProvider } from '../../../src/index.js';
import { FAKE_ANSWER, type StackFactory } from './stack.js';

/** The shared embedder as a LangChain `Embeddings` (the documented way to add a model). */
class HashingEmbeddings extends Embeddings {
  readonly #embedder: EmbeddingProvider;

  constructor(embedder: EmbeddingProvider) {
    super({});
    this.#embedder = embedder;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    const vectors = await this.#embedder.embed(texts);
    return vectors.map((vector) => Array.from(vector));
  }

  async embedQuery(text: string): Promise<number[]> {
    const [vector] = await this.#embedder.embed([text]);
    return Array.from(vector!);
  }
}

const formatDocuments = (documents: DocumentInterface[]): string =>
  documents.map((document) => document.pageContent).join('\n\n');

export const createLangChainStack: StackFactory = ({ embedder }) => {
  const vectorStore = new MemoryVectorStore(new HashingEmbeddings(embedder));
  const retriever = vectorStore.asRetriever();
  const model = new FakeListChatModel({ responses: [FAKE_ANSWER] });
  const prompt = ChatPromptTemplate.fromMessages([
    [
      'system',
      'You answer questions about scientific claims. Use only the following context; if it ' +
        'does not contain the answer, say that you do not know.\n\n{context}',
    ],
    new MessagesPlaceholder('history'),
    ['human', '{question}'],
  ]);
  const ragChain = RunnableSequence.from([
    RunnablePassthrough.assign({
      context: RunnableSequence.from([
        (input: { question: string }) => input.question,
        retriever,
        formatDocuments,
      ]),
    }),
    prompt,
    model,
    new StringOutputParser(),
  ]);
  const histories = new Map<string, InMemoryChatMessageHistory>();
  const chain = new RunnableWithMessageHistory({
    runnable: ragChain,
    getMessageHistory: (sessionId: string) => {
      let history = histories.get(sessionId);
      if (history === undefined) {
        history = new InMemoryChatMessageHistory();
        histories.set(sessionId, history);
      }
      return history;
    },
    inputMessagesKey: 'question',
    historyMessagesKey: 'history',
  });

  return {
    async ingest(documents) {
      const splitter = new RecursiveCharacterTextSplitter({ chunkSize: 1000, chunkOverlap: 200 });
      const chunks = await splitter.splitDocuments(
        documents.map(
          (document) =>
            new Document({
              pageContent: `${document.title}\n\n${document.text}`,
              metadata: { id: document.id, title: document.title },
            }),
        ),
      );
      await vectorStore.addDocuments(chunks);
      return chunks.length;
    },
    async conversation() {
      const sessionId = `s${histories.size + 1}`;
      return (question) => chain.invoke({ question }, { configurable: { sessionId } });
    },
  };
};
