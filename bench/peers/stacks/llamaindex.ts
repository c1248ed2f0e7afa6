/**
 * LlamaIndex.TS 0.12, as its starter builds it: `Settings.embedModel` / `Settings.llm`,
 * `VectorStoreIndex.fromDocuments` (default `SentenceSplitter`, in-memory stores), and
 * `index.asChatEngine()` (a `ContextChatEngine`: retrieve on the message, answer with the
 * context and the chat memory). The LLM is LlamaIndex's own `MockLLM` (no delay when not
 * streaming) with the metadata of a current hosted model (128k context window).
 */
import { MockLLM } from '@llamaindex/core/llms/mock';
import { BaseEmbedding, Document, Settings, VectorStoreIndex } from 'llamaindex';
import type { EmbeddingProvider } from '../../../src/index.js';
import { FAKE_ANSWER, type StackFactory } from './stack.js';

/** The shared embedder as a LlamaIndex `BaseEmbedding` (the documented way to add a model). */
class HashingEmbedding extends BaseEmbedding {
  readonly #embedder: EmbeddingProvider;

  constructor(embedder: EmbeddingProvider) {
    super();
    this.#embedder = embedder;
    this.getTextEmbeddings = async (texts) => {
      const vectors = await this.#embedder.embed(texts);
      return vectors.map((vector) => Array.from(vector));
    };
  }

  async getTextEmbedding(text: string): Promise<number[]> {
    const [vector] = await this.#embedder.embed([text]);
    return Array.from(vector!);
  }
}

export const createLlamaIndexStack: StackFactory = ({ embedder }) => {
  Settings.embedModel = new HashingEmbedding(embedder);
  Settings.llm = new MockLLM({
    responseMessage: FAKE_ANSWER,
    metadata: {
      model: 'mock',
      temperature: 0,
      topP: 1,
      contextWindow: 128_000,
      tokenizer: undefined,
      structuredOutput: false,
    },
  });
  let index: VectorStoreIndex | undefined;

  return {
    async ingest(documents) {
      index = await VectorStoreIndex.fromDocuments(
        documents.map(
          (document) =>
            new Document({
              id_: document.id,
              text: document.text,
              metadata: { title: document.title },
            }),
        ),
      );
      return Object.keys(index.indexStruct.nodesDict).length;
    },
    async conversation() {
      if (index === undefined) throw new Error('ingest first');
      const chatEngine = index.asChatEngine();
      return async (message) => {
        const response = await chatEngine.chat({ message });
        return response.message.content.toString();
      };
    },
  };
};
