/** Counts and cuts text in model tokens, for chunking and the context budget. */
export interface Tokenizer {
  /** Tokenizer name (an encoding such as `o200k_base`). */
  readonly name: string;
  /** Number of tokens in `text`. */
  count(text: string): number;
  /** Token ids of `text`. */
  encode(text: string): number[];
  /** Text of token ids. */
  decode(tokens: readonly number[]): string;
}
