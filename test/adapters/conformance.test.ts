import { createExtractiveProvider } from '../../src/adapters/extractive/provider.js';
import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { createMemoryGraphStore } from '../../src/adapters/memory/graph-store.js';
import { createMemoryKeywordIndex } from '../../src/adapters/memory/keyword-index.js';
import { createMemoryLearningSink } from '../../src/adapters/memory/learning-sink.js';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import {
  createMockLLM,
  testEmbeddingProvider,
  testGraphStore,
  testKeywordIndex,
  testLearningSink,
  testLLMProvider,
  testSessionStore,
  testTokenizer,
  testVectorStore,
} from '../../src/testing/index.js';

// Every core adapter passes the conformance suite of its port, as third-party adapters must.

testVectorStore({ title: 'memory vector store', create: () => createMemoryVectorStore() });
testVectorStore({
  title: 'memory vector store (384 dimensions)',
  create: () => createMemoryVectorStore(),
  dimensions: 384,
});
testKeywordIndex({ title: 'memory keyword index', create: () => createMemoryKeywordIndex() });
testGraphStore({ title: 'memory graph store', create: () => createMemoryGraphStore() });
testSessionStore({ title: 'memory session store', create: () => createMemorySessionStore() });
testLearningSink({ title: 'memory learning sink', create: () => createMemoryLearningSink() });
testEmbeddingProvider({ title: 'hashing embedder', create: () => createHashingEmbedder() });
testEmbeddingProvider({
  title: 'hashing embedder (64 dimensions)',
  create: () => createHashingEmbedder({ dimensions: 64 }),
});
testLLMProvider({
  title: 'extractive provider',
  create: () => createExtractiveProvider(),
  deterministic: true,
});
testLLMProvider({
  title: 'mock LLM',
  create: () =>
    createMockLLM({ responses: 'The sky is blue because air scatters blue light [source: S1].' }),
  deterministic: true,
});
testLLMProvider({
  title: 'mock LLM (scripted list, character chunks)',
  create: () =>
    createMockLLM({
      responses: [
        { text: 'Blue [source: S1].', certainty: 0.5, usage: { inputTokens: 9, outputTokens: 4 } },
      ],
      chunking: 'character',
    }),
  deterministic: true,
});
testTokenizer({ title: 'gpt-tokenizer', create: () => createGptTokenizer() });
