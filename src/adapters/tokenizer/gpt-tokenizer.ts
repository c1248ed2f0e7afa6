/**
 * `Tokenizer` over gpt-tokenizer (OpenAI BPE encodings). The encoding tables are loaded with a
 * dynamic import on first use, so importing cortexis does not load them.
 * @module
 */
import { ValidationError } from '../../errors/index.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import { bpeSegments } from './segments.js';

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

/** The part of a gpt-tokenizer encoding module this adapter uses. */
type EncodingModule = Pick<
  typeof import('gpt-tokenizer/encoding/cl100k_base'),
  'countTokens' | 'encode' | 'decode'
>;

/** The library's shared UTF-8 decoder (see `flushDecoder`). */
type DecoderModule = Partial<Pick<typeof import('gpt-tokenizer/BytePairEncodingCore'), 'decoder'>>;

/** A loaded encoding. */
interface Loaded {
  readonly library: EncodingModule;
  readonly core: DecoderModule;
}

// Literal specifiers, one per encoding, so bundlers can split each table into its own chunk.
const loaders: Record<GptEncodingName, () => Promise<EncodingModule>> = {
  cl100k_base: () => import('gpt-tokenizer/encoding/cl100k_base'),
  o200k_base: () => import('gpt-tokenizer/encoding/o200k_base'),
};

const loaded = new Map<GptEncodingName, Promise<Loaded>>();

// Special-token strings such as `<|endoftext|>` in user text are encoded as plain text
// instead of throwing (the library's default) or being read as control tokens.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

function loadEncoding(encoding: GptEncodingName): Promise<Loaded> {
  let module = loaded.get(encoding);
  if (!module) {
    module = Promise.all([
      loaders[encoding](),
      import('gpt-tokenizer/BytePairEncodingCore') as Promise<DecoderModule>,
    ]).then(([library, core]) => ({ library, core }));
    // A failed load is not cached, so a later call can try again.
    module.catch(() => loaded.delete(encoding));
    loaded.set(encoding, module);
  }
  return module;
}

/** Loads an OpenAI BPE encoding (cached per process) and returns it as a `Tokenizer`. */
export async function createGptTokenizer(settings: GptTokenizerSettings = {}): Promise<Tokenizer> {
  const encoding = settings.encoding ?? 'cl100k_base';
  if (!Object.hasOwn(loaders, encoding)) {
    const message = `encoding must be one of ${Object.keys(loaders).join(', ')}`;
    throw new ValidationError(`Invalid tokenizer settings: ${message}`, [
      { path: 'encoding', message },
    ]);
  }
  const { library, core } = await loadEncoding(encoding);
  // Pathological runs are cut before byte-pair encoding (see `bpeSegments`): linear time.
  return {
    name: encoding,
    count(text) {
      let total = 0;
      for (const segment of bpeSegments(text)) {
        if (segment.length > 0) total += library.countTokens(segment, PLAIN_TEXT);
      }
      return total;
    },
    encode(text) {
      const segments = bpeSegments(text);
      if (segments.length === 1) return library.encode(text, PLAIN_TEXT);
      const tokens: number[] = [];
      for (const segment of segments) {
        for (const token of library.encode(segment, PLAIN_TEXT)) tokens.push(token);
      }
      return tokens;
    },
    decode: (tokens) => library.decode(tokens) + flushDecoder(core),
  };
}

/**
 * gpt-tokenizer 3.4 decodes through one module-wide `TextDecoder` in streaming mode and never
 * flushes it: token ids that end inside a character leave bytes behind that corrupt the next,
 * unrelated `decode`. Flushing after every call makes `decode` stateless; a cut character
 * becomes U+FFFD, as a non-streaming decoder would give.
 */
function flushDecoder(core: DecoderModule): string {
  return core.decoder?.decode() ?? '';
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
