/** Counts and cuts text in model tokens, for chunking and the context budget. */
export interface Tokenizer {
  /** Tokenizer name (an encoding such as `o200k_base`). */
  readonly name: string;
  /**
   * Optional: true when a text's count is the sum of the counts of its parts cut at any space
   * that follows a printable ASCII character and precedes an ASCII letter (byte-level BPE with
   * tiktoken's pre-tokenisers). Ingestion then counts each distinct word once.
   */
  readonly piecewise?: boolean | undefined;
  /** Number of tokens in `text`. */
  count(text: string): number;
  /** Token ids of `text`. */
  encode(text: string): number[];
  /** Text of token ids. */
  decode(tokens: readonly number[]): string;
}
