/** What the peer benchmark asks of each stack: an index to fill and conversations over it. */
import type { EmbeddingProvider } from '../../../src/index.js';

/** The cortexis module as built (`dist/index.js`), loaded by path: its types come from the sources. */
export type CortexisModule = typeof import('../../../src/index.js');

export interface BenchDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

/** One conversation: each call is one user turn, resolved with the answer text. */
export type Conversation = (message: string) => Promise<string>;

/** A fresh, empty knowledge base of one stack. */
export interface StackInstance {
  /** Chunks, embeds and indexes the documents; resolves with the number of chunks stored. */
  ingest(documents: readonly BenchDocument[]): Promise<number>;
  /** Starts a conversation with its own history (not timed by the benchmark). */
  conversation(): Promise<Conversation>;
}

export interface StackSettings {
  /** The embedder every stack uses (cortexis's 256-d hashing embedder), wrapped as each needs. */
  readonly embedder: EmbeddingProvider;
  /** The cortexis build under test (the peers use it only for the embedder above). */
  readonly cortexis: CortexisModule;
}

/** The fake model's answer (peers): fixed, returned at once, about as long as a short answer. */
export const FAKE_ANSWER =
  'According to the retrieved abstracts, the evidence supports the claim in the population ' +
  'studied, although the effect size varies between cohorts and further trials are needed.';

export type StackFactory = (settings: StackSettings) => StackInstance;
