import type { CallOptions } from './common.js';

/** Role of a message sent to a model. */
export type LLMRole = 'system' | 'user' | 'assistant';

/** One message of the conversation sent to a model. */
export interface LLMMessage {
  /** Who said it. */
  readonly role: LLMRole;
  /** What was said. */
  readonly content: string;
}

/** A retrieved source as the prompt labels it, for providers that work on structured input. */
export interface PromptSource {
  /** The label the answer cites, `S1`..`Sn`. */
  readonly label: string;
  /** The source text given to the model (raw; the prompt escapes it inside its fence). */
  readonly text: string;
  /** Document title, when known. */
  readonly title?: string | undefined;
  /** The headings the chunk sits under, outermost first, joined with ` › ` (its `section`). */
  readonly section?: string | undefined;
}

/** What a generation call asks for. */
export interface LLMRequest extends CallOptions {
  /** System instructions (with the fenced sources block for a grounded answer). */
  readonly system?: string | undefined;
  /** The conversation, oldest first, ending with the current user message. */
  readonly messages: readonly LLMMessage[];
  /**
   * The sources the system prompt contains, as data. Remote models read the prompt and may
   * ignore this; the offline extractive provider answers from it.
   */
  readonly sources?: readonly PromptSource[] | undefined;
  /**
   * The standalone question retrieval used (a follow-up rewritten from history), when it
   * differs from the last user message. Remote models read the conversation and ignore it; the
   * offline extractive provider selects sentences against it.
   */
  readonly retrievalQuery?: string | undefined;
  /** Most tokens to generate. */
  readonly maxTokens?: number | undefined;
  /** Sampling temperature. */
  readonly temperature?: number | undefined;
  /**
   * Nucleus sampling in (0, 1] (seed 000 `topP`): sent as `top_p` by the OpenAI, Anthropic and
   * Ollama adapters; the extractive model does not sample and ignores it.
   */
  readonly topP?: number | undefined;
}

/** Token counts of one call. */
export interface LLMUsage {
  /** Tokens read. */
  readonly inputTokens: number;
  /** Tokens written. */
  readonly outputTokens: number;
}

/** Why generation stopped. */
export type FinishReason = 'stop' | 'length' | 'content-filter' | 'other';

/** The result of a non-streaming call. */
export interface LLMResult {
  /** The generated text. */
  readonly text: string;
  /** Why generation stopped. */
  readonly finishReason: FinishReason;
  /** Token counts, when the provider reports them. */
  readonly usage?: LLMUsage | undefined;
  /** The model's own certainty in [0, 1] (e.g. from log-probabilities), when it has one. */
  readonly certainty?: number | undefined;
  /**
   * How close the model came to answering otherwise, when it knows: its runner-up answer's
   * score over the given answer's, in [0, 1] (1 = a tie).
   */
  readonly runnerUp?: number | undefined;
  /** True when the text is the model's refusal to answer, for providers that know it. */
  readonly refused?: boolean | undefined;
}

/** A part of a streamed generation. */
export type LLMStreamPart =
  | {
      /** A piece of the answer text. */
      readonly type: 'text-delta';
      /** The text to append. */
      readonly text: string;
    }
  | {
      /** The stream ended normally; nothing follows. */
      readonly type: 'finish';
      /** Why generation stopped. */
      readonly finishReason: FinishReason;
      /** Token counts, when reported. */
      readonly usage?: LLMUsage | undefined;
      /** The model's certainty in [0, 1], when it has one. */
      readonly certainty?: number | undefined;
      /** How close its runner-up answer came, in [0, 1], when it knows. */
      readonly runnerUp?: number | undefined;
      /** True when the text was the model's refusal to answer, for providers that know it. */
      readonly refused?: boolean | undefined;
    };

/** What a provider tells about itself. */
export interface LLMMetadata {
  /** Provider name, e.g. `openai`, `anthropic`, `extractive`. */
  readonly provider: string;
  /** Model id. */
  readonly model: string;
  /**
   * Seed 000's provider kind: `openai` (OpenAI's own API), `anthropic`, `local` (a model on
   * this machine or network: Ollama, the offline extractive model) or `custom` (anything else,
   * e.g. another OpenAI-compatible server). Optional for third-party adapters.
   */
  readonly type?: 'openai' | 'anthropic' | 'local' | 'custom' | undefined;
  /**
   * Seed 000's `supportedModels`: the model ids (or id prefixes, for dated snapshots) this
   * adapter knows the limits of. Other ids work too, with conservative limits.
   */
  readonly supportedModels?: readonly string[] | undefined;
  /** Tokens the model reads and writes in one call. */
  readonly contextWindow: number;
  /** Most tokens the model writes in one call, when limited below the window. */
  readonly maxOutputTokens?: number | undefined;
  /**
   * `false` when the model cannot follow free-form instructions (rewrite a question, write a
   * summary) and only quotes its sources, like the offline extractive model. Default `true`.
   */
  readonly followsInstructions?: boolean | undefined;
}

/** A language model. Errors are thrown as `ProviderError` (with `retryable`) or `AbortError`. */
export interface LLMProvider {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** The model and its limits. */
  readonly metadata: LLMMetadata;
  /** Generates a whole answer (its `text` a string; anything else is a `ProviderError`). */
  generate(request: LLMRequest): Promise<LLMResult>;
  /**
   * Streams an answer as text deltas ending with one `finish` part. When the caller stops early
   * (abort, timeout, leaving the loop) the iterator's `return()` is called once: release
   * connections in a `finally`. A `text-delta` whose `text` is not a string is a `ProviderError`.
   */
  stream(request: LLMRequest): AsyncIterable<LLMStreamPart>;
}
