/**
 * `Tokenizer` for OpenAI's BPE encodings. Each encoding's table ships with cortexis as its own
 * module (`dist/encodings/`), loaded with a dynamic import on first use: importing cortexis does
 * not load it, and bundlers never inline it (the specifier is not one they follow). Browser hosts
 * that would rather fetch the table pass it to `createBpeTokenizer` instead.
 * @module
 */
import { ConfigError, ValidationError } from '../../errors/index.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import { createBpeTokenizer, type BpeEncodingData } from './bpe.js';

/** BPE encodings this adapter can load. */
export type GptEncodingName = 'cl100k_base' | 'o200k_base';

/** Settings of `createGptTokenizer`. */
export interface GptTokenizerSettings {
  /**
   * The encoding: `cl100k_base` (GPT-4, GPT-3.5, default; loads about twice as fast) or
   * `o200k_base` (GPT-4o and later).
   */
  readonly encoding?: GptEncodingName | undefined;
}

/** Where each table's module is, relative to this module (in the package: `dist/encodings/`). */
const tables: Record<GptEncodingName, string> = {
  cl100k_base: './encodings/cl100k_base.js',
  o200k_base: './encodings/o200k_base.js',
};

/**
 * Imports a table by a specifier bundlers do not follow, so that no bundle inlines the tables
 * (1 and 2 MB): they are loaded at run time from the `encodings/` folder next to the code, as
 * the package ships it. A host whose bundle has no such folder injects a table instead
 * (`createBpeTokenizer({ data })`).
 */
async function loadTable(encoding: GptEncodingName): Promise<{ default: BpeEncodingData }> {
  const specifier = tables[encoding];
  try {
    return (await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)) as {
      default: BpeEncodingData;
    };
  } catch (error) {
    throw new ConfigError(
      `The ${encoding} tokenizer table could not be loaded from ${specifier} (next to cortexis's code). ` +
        'A bundle must keep the encodings/ folder of cortexis/dist next to it, or pass ' +
        '`tokenizer: createBpeTokenizer({ data })` with a table the host loads itself.',
      [{ path: 'tokenizer', message: `${encoding} table not found at ${specifier}` }],
      { cause: error },
    );
  }
}

const loaded = new Map<GptEncodingName, Promise<Tokenizer>>();

/**
 * Loads an OpenAI BPE encoding (parsed once per process) and returns it as a `Tokenizer`. Text
 * that spells a special token such as `<|endoftext|>` is encoded as plain text.
 */
export async function createGptTokenizer(settings: GptTokenizerSettings = {}): Promise<Tokenizer> {
  const encoding = settings.encoding ?? 'cl100k_base';
  if (!Object.hasOwn(tables, encoding)) {
    const message = `encoding must be one of ${Object.keys(tables).join(', ')}`;
    throw new ValidationError(`Invalid tokenizer settings: ${message}`, [
      { path: 'encoding', message },
    ]);
  }
  let tokenizer = loaded.get(encoding);
  if (!tokenizer) {
    tokenizer = loadTable(encoding).then((module) => createBpeTokenizer({ data: module.default }));
    // A failed load is not cached, so a later call can try again.
    tokenizer.catch(() => loaded.delete(encoding));
    loaded.set(encoding, tokenizer);
  }
  return tokenizer;
}

/**
 * The longest prefix of `text` that is at most `maxTokens` tokens, cut on a token boundary
 * (never inside a character); `text` itself when it fits.
 */
export function truncateToTokens(tokenizer: Tokenizer, text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  if (tokenizer.count(text) <= maxTokens) return text;
  const tokens = tokenizer.encode(text);
  // A cut inside a multi-byte character decodes to U+FFFD; step back until it does not.
  for (let length = Math.min(maxTokens, tokens.length); length > 0; length--) {
    const prefix = tokenizer.decode(tokens.slice(0, length));
    if (text.startsWith(prefix)) return prefix;
  }
  return '';
}
