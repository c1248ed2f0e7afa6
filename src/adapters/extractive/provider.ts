/**
 * The offline `LLMProvider`: it answers by quoting the sentences of the supplied sources that
 * best cover the question, each cited as `[source: S1]`. No network, no model, deterministic —
 * the default when no provider is configured, and the provider tests rely on.
 *
 * @example
 * ```ts
 * const llm = createExtractiveProvider();
 * const result = await llm.generate({
 *   messages: [{ role: 'user', content: 'How long do refunds take?' }],
 *   sources: [{ label: 'S1', text: 'Refunds are issued within 14 days.' }],
 * });
 * result.text; // 'Refunds are issued within 14 days [source: S1].'
 * ```
 * @module
 */
import { ValidationError, throwIfAborted } from '../../errors/index.js';
import type {
  FinishReason,
  LLMMessage,
  LLMProvider,
  LLMRequest,
  LLMResult,
  LLMStreamPart,
  LLMUsage,
  PromptSource,
} from '../../ports/llm-provider.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import { hasNoSpaceScript } from '../../text/segment.js';
import { splitSentences } from '../../text/sentences.js';
import { contentWords } from '../../text/words.js';
import { sleep } from '../../util/sleep.js';
import { stem } from '../../text/stem.js';

/** How answers are composed (the answer-shaping subset of the settings). */
export interface ExtractiveAnswerOptions {
  /** Most source sentences quoted. Default 3. */
  readonly maxSentences?: number | undefined;
  /** Most sentences in a summary. Default 5. */
  readonly maxSummarySentences?: number | undefined;
  /** Least share of the question's term weight a quoted sentence contains. Default 0.2. */
  readonly minCoverage?: number | undefined;
}

/** Settings of `createExtractiveProvider`. */
export interface ExtractiveProviderSettings extends ExtractiveAnswerOptions {
  /** Context window reported in `metadata`. Default 16384. */
  readonly contextWindow?: number | undefined;
  /**
   * Counts output tokens (for `maxTokens` and usage). Without one, tokens are approximated
   * from words: one token per four characters of each word, at least one per word.
   */
  readonly tokenizer?: Tokenizer | undefined;
  /** Pause before each streamed delta, in ms, to make streaming visible in demos. Default 0. */
  readonly delayMs?: number | undefined;
}

/** Provider name in `metadata`. */
export const EXTRACTIVE_PROVIDER = 'extractive';
/** Model id in `metadata`. */
export const EXTRACTIVE_MODEL = 'extractive-v1';

/** What the provider answers when no source sentence overlaps the question. */
export const NO_ANSWER_TEXT = 'The provided sources do not contain an answer to this question.';
/** What the provider answers to a question when no sources are supplied. */
export const NO_SOURCES_TEXT =
  'I answer only from the documents in the knowledge base, and none were provided for this question.';

type AnswerOptions = { readonly [K in keyof ExtractiveAnswerOptions]-?: number };

/** An answer before `maxTokens` is applied. */
export interface ExtractiveAnswer {
  /** The answer text. */
  readonly text: string;
  /** How well the quoted sentences cover the question, in [0, 1]; absent for small talk. */
  readonly certainty?: number | undefined;
}

/** Creates the offline extractive provider. */
export function createExtractiveProvider(settings: ExtractiveProviderSettings = {}): LLMProvider {
  const options = resolveSettings(settings);
  const { tokenizer } = settings;
  const contextWindow = settings.contextWindow ?? 16_384;
  const delayMs = settings.delayMs ?? 0;

  const run = (request: LLMRequest): LLMResult => {
    validateRequest(request);
    const answer = composeAnswer(request, options);
    const { text, truncated } = limitTokens(answer.text, request.maxTokens, tokenizer);
    const finishReason: FinishReason = truncated ? 'length' : 'stop';
    const usage: LLMUsage = {
      inputTokens: approximateTokens(inputText(request)),
      outputTokens: countTokens(text, tokenizer),
    };
    return answer.certainty === undefined
      ? { text, finishReason, usage }
      : { text, finishReason, usage, certainty: answer.certainty };
  };

  return {
    name: EXTRACTIVE_PROVIDER,
    specificationVersion: 'v1',
    metadata: { provider: EXTRACTIVE_PROVIDER, model: EXTRACTIVE_MODEL, contextWindow },
    async generate(request) {
      throwIfAborted(request.signal);
      return run(request);
    },
    async *stream(request): AsyncGenerator<LLMStreamPart> {
      throwIfAborted(request.signal);
      const result = run(request);
      for (const delta of splitDeltas(result.text)) {
        if (delayMs > 0) await sleep(delayMs, request.signal);
        throwIfAborted(request.signal);
        yield { type: 'text-delta', text: delta };
      }
      throwIfAborted(request.signal);
      const { finishReason, usage, certainty } = result;
      yield {
        type: 'finish',
        finishReason,
        usage,
        ...(certainty === undefined ? {} : { certainty }),
      };
    },
  };
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid extractive provider settings: ${path} ${message}`, [
    { path, message },
  ]);
}

function resolveSettings(settings: ExtractiveProviderSettings): AnswerOptions {
  const positive = (name: keyof ExtractiveProviderSettings, value: number | undefined): void => {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw invalid(name, 'must be a positive integer');
    }
  };
  positive('maxSentences', settings.maxSentences);
  positive('maxSummarySentences', settings.maxSummarySentences);
  positive('contextWindow', settings.contextWindow);
  const { minCoverage, delayMs } = settings;
  if (minCoverage !== undefined && !(minCoverage >= 0 && minCoverage <= 1)) {
    throw invalid('minCoverage', 'must be a number from 0 to 1');
  }
  if (delayMs !== undefined && !(delayMs >= 0 && Number.isFinite(delayMs))) {
    throw invalid('delayMs', 'must be a non-negative number');
  }
  return answerOptions(settings);
}

function answerOptions(options: ExtractiveAnswerOptions): AnswerOptions {
  return {
    maxSentences: options.maxSentences ?? 3,
    maxSummarySentences: options.maxSummarySentences ?? 5,
    minCoverage: options.minCoverage ?? 0.2,
  };
}

function validateRequest(request: LLMRequest): void {
  if (!Array.isArray(request.messages)) {
    throw new ValidationError('Invalid request: messages must be an array', [
      { path: 'messages', message: 'must be an array' },
    ]);
  }
  const { maxTokens } = request;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw new ValidationError('Invalid request: maxTokens must be a positive integer', [
      { path: 'maxTokens', message: 'must be a positive integer' },
    ]);
  }
}

// ---------------------------------------------------------------------------------------------
// Answering

const SUMMARY_REQUEST = /\bsummar(?:y|ies|i[sz]e[sd]?|i[sz]ing)\b/i;
// Words that say what to do with the answer rather than what it is about.
const INSTRUCTION_WORDS = new Set(
  (
    'explain describe tell please list give show know mean take get need want find ' +
    'document documents source sources text'
  ).split(' '),
);
// Words that name what a summary request is about ("summarise the conversation above"); in
// any other question they are its topic ("how do I route a conversation?").
const SUMMARY_WORDS = new Set('conversation discussion chat above'.split(' '));
// "How long / much / many …", "what time" ask for a quantity; the quantity word is not a topic.
const QUANTITY_QUESTION =
  /\bhow\s+(?:long|much|many|often|soon|far|big|old|fast|quickly)\b|\bwhat\s+time\b/gi;
const GREETING = /^\s*(?:hi|hello|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening))\b/i;
const THANKS = /\b(?:thanks|thank you|thx|cheers|much appreciated)\b/i;
const FAREWELL = /^\s*(?:bye|goodbye|see you|farewell)\b/i;

/** How much more a term of the user's own follow-up weighs than one carried by the rewrite. */
const OWN_TERM_WEIGHT = 3;

/** The answer to a request, before `maxTokens`: pure and deterministic. */
export function composeAnswer(
  request: Pick<LLMRequest, 'system' | 'messages' | 'sources' | 'retrievalQuery'>,
  options: ExtractiveAnswerOptions = {},
): ExtractiveAnswer {
  const settings = answerOptions(options);
  const question = lastUserMessage(request.messages)?.content ?? '';
  const sources = request.sources ?? [];
  const wantsSummary =
    SUMMARY_REQUEST.test(instructionsOf(request.system ?? '', sources)) ||
    SUMMARY_REQUEST.test(question);
  if (sources.length > 0) {
    const sentences = sourceSentences(sources);
    // A follow-up ("and how long does it take?") is answered by its standalone form; the
    // user's own words still say what kind of answer is asked for.
    const terms = questionTerms(
      request.retrievalQuery ? `${question} ${request.retrievalQuery}` : question,
      wantsSummary,
    );
    if (terms.length === 0 && wantsSummary) {
      return summarize(sentences, settings.maxSummarySentences, true);
    }
    // The terms the user wrote weigh more than those the rewrite carried over from earlier
    // turns: "How long does shipping take?" after a refund question is about shipping.
    const own = request.retrievalQuery ? new Set(questionTerms(question, wantsSummary)) : undefined;
    return answerFromSources(sentences, terms, answerKindOf(question), settings, own);
  }
  if (wantsSummary) {
    const sentences = withoutQuestions(conversationSentences(request.messages, question));
    if (sentences.length > 0) return summarize(sentences, settings.maxSummarySentences, false);
  }
  return smallTalk(question);
}

// Blocks of data the engine's system prompt carries: the sources, the conversation memory.
const DATA_BLOCK = /<(sources|conversation_memory)>[\s\S]*?<\/\1>/g;

/**
 * The system prompt without the data it carries (the sources, the conversation memory): a
 * source or a memory that mentions summaries does not ask for one.
 */
function instructionsOf(system: string, sources: readonly PromptSource[]): string {
  let instructions = system.replace(DATA_BLOCK, ' ');
  for (const source of sources) instructions = instructions.split(source.text).join(' ');
  return instructions;
}

function lastUserMessage(messages: readonly LLMMessage[]): LLMMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === 'user') return messages[index];
  }
  return undefined;
}

/** A quotable sentence with its normalised terms. */
interface Candidate {
  /** The sentence as it is quoted (cleaned of markup and citation tags). */
  readonly text: string;
  /** Stemmed content terms. */
  readonly terms: ReadonlySet<string>;
  /** The same terms in sentence order (for phrase matches). */
  readonly sequence: readonly string[];
  /** Label cited for it, when it comes from a source. */
  readonly label: string | undefined;
  /** Rank of its source among the request's sources (best first); 0 outside sources. */
  readonly rank: number;
  /**
   * The document its source is a chunk of (the source's title, else its label): chunks of one
   * document are quoted together as one source.
   */
  readonly document?: string | undefined;
  /** Order of appearance over all inputs. */
  readonly order: number;
  /** Whether it is a table row (its cells joined): prose is preferred over it. */
  readonly tableRow: boolean;
  /**
   * Stemmed terms of what the sentence is filed under: the nearest heading above it in its
   * source (the document title when none) and, for a table row, its first cell (the key the
   * row describes).
   */
  readonly heading: ReadonlySet<string>;
}

function sourceSentences(sources: readonly PromptSource[]): Candidate[] {
  const candidates: Candidate[] = [];
  sources.forEach((source, rank) => {
    let heading = termSet(source.title ?? '');
    for (const sentence of splitSentences(withoutCodeBlocks(source.text))) {
      const headingLine = /^\s*#{1,6}\s+(.+)$/m.exec(sentence.text);
      if (headingLine) heading = termSet(headingLine[1]!);
      const candidate = toCandidate(sentence.text, source.label, candidates.length, rank, heading);
      if (candidate) candidates.push({ ...candidate, document: source.title ?? source.label });
    }
  });
  return candidates;
}

function termSet(text: string): Set<string> {
  return new Set(contentWords(text).map(stem));
}

const FENCE = /^[ \t]*(?:```|~~~)/;

/**
 * The text without its fenced code blocks: code is not a sentence to quote, and the sentence
 * splitter would cut it into fragments that no longer show they are code. A chunk may start
 * inside a block (its first fence closes it: that fence has no info string and the lines
 * before it look like code) or end inside one (the open block runs to the end).
 */
function withoutCodeBlocks(text: string): string {
  if (!text.includes('```') && !text.includes('~~~')) return text;
  const lines = text.split('\n');
  const fences = lines.flatMap((line, index) => (FENCE.test(line) ? [index] : []));
  let inside = false;
  const first = fences[0];
  if (first !== undefined && fences.length % 2 === 1) {
    // An odd count: the chunk was cut inside a block at one end.
    const bare = /^[ \t]*(?:```|~~~)[ \t]*$/.test(lines[first]!);
    const codeBefore = lines.slice(0, first).some((line) => /[;{}()=]\s*$/.test(line));
    inside = bare && codeBefore;
  }
  const kept: string[] = [];
  for (const line of lines) {
    if (FENCE.test(line)) {
      inside = !inside;
      kept.push('');
      continue;
    }
    kept.push(inside ? '' : line);
  }
  return kept.join('\n');
}

/** The statements among the sentences (questions make poor summary lines), if there are any. */
function withoutQuestions(candidates: Candidate[]): Candidate[] {
  const statements = candidates.filter((candidate) => !isQuestion(candidate.text));
  return statements.length > 0 ? statements : candidates;
}

function isQuestion(text: string): boolean {
  return /[?？]["'”’)\]]*$/.test(text);
}

/** Sentences of the conversation, without the summary request itself. */
function conversationSentences(messages: readonly LLMMessage[], question: string): Candidate[] {
  const last = lastUserMessage(messages);
  const isInstruction =
    last !== undefined && SUMMARY_REQUEST.test(question) && question.split(/\s+/).length <= 40;
  const candidates: Candidate[] = [];
  for (const message of messages) {
    if (isInstruction && message === last) continue;
    for (const sentence of splitSentences(message.content)) {
      const candidate = toCandidate(sentence.text, undefined, candidates.length);
      if (candidate) candidates.push(candidate);
    }
  }
  return candidates;
}

const CITATION = /\s*\[\s*source\s*:[^\]]*\]/gi;

// Longer spans are blocks the sentence splitter could not break, not sentences.
const MAX_QUOTE_LENGTH = 600;

/** A sentence cleaned for quoting, or undefined when it is markup or too short to quote. */
function toCandidate(
  raw: string,
  label: string | undefined,
  order: number,
  rank = 0,
  heading: ReadonlySet<string> = new Set(),
): Candidate | undefined {
  // Code and run-on blocks are not sentences to quote.
  if (raw.includes('```') || raw.includes('~~~')) return undefined;
  if (raw.length > MAX_QUOTE_LENGTH) return undefined;
  // A table row is quoted as its cells ("`retries` — 2 — retries after the first attempt").
  const tableRow = /^\s*\|/.test(raw);
  if (tableRow) {
    const cells = raw
      .split(/(?<!\\)\|/)
      .map((cell) => cell.replace(/\\\|/g, '|').trim())
      .filter((cell) => cell.length > 0);
    if (cells.length === 0 || cells.every((cell) => /^:?-+:?$/.test(cell))) return undefined;
    raw = cells.join(' — ');
    heading = new Set([...heading, ...termSet(cells[0]!)]);
  }
  const lines = raw.split('\n');
  // A heading line glued to the text under it is not part of the sentence.
  while (lines.length > 0 && /^\s*#{1,6}(?:\s|$)/.test(lines[0]!)) lines.shift();
  const text = lines
    .join(' ')
    .replace(CITATION, '')
    .replace(/^\s*(?:>\s*)*(?:[-*+•]|\d{1,3}[.)])\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const words = contentWords(text);
  // Scripts without spaces (Chinese, Japanese, Thai) count segmented words, not spaces.
  if (words.length < 2 || (text.split(' ').length < 3 && !hasNoSpaceScript(text))) {
    return undefined;
  }
  const sequence = words.map(stem);
  return { text, terms: new Set(sequence), sequence, label, rank, order, tableRow, heading };
}

/** Stemmed content terms of the question, without instruction words. */
function questionTerms(question: string, wantsSummary: boolean): string[] {
  const terms = new Set(
    contentWords(question.replace(CITATION, '').replace(QUANTITY_QUESTION, ' '))
      .filter(
        (word) =>
          !INSTRUCTION_WORDS.has(word) &&
          !(wantsSummary && SUMMARY_WORDS.has(word)) &&
          !word.startsWith('summar'),
      )
      .map(stem),
  );
  return [...terms];
}

export { stem } from '../../text/stem.js';

/**
 * Inverse frequency of each term over the candidate sentences, `ln(1 + N / max(df, 1))`: a term
 * no sentence contains weighs like one that a single sentence contains, so a framing word
 * absent from the sources ("policy") cannot drown the topic words that are there.
 */
function inverseFrequencies(
  candidates: readonly Candidate[],
  terms: readonly string[],
): Map<string, number> {
  const weights = new Map<string, number>();
  for (const term of terms) {
    let frequency = 0;
    for (const candidate of candidates) if (candidate.terms.has(term)) frequency++;
    weights.set(term, Math.log(1 + candidates.length / Math.max(frequency, 1)));
  }
  return weights;
}

/**
 * What kind of answer a question asks for, read from its own words: "how long / fast" a
 * duration, "how much / what does it cost" an amount of money, "how old" an age, "what time"
 * a time of day, "how far" a distance, "when …" a moment or condition, "how many" a count. A sentence of the wrong kind does
 * not answer it, however many of its words it shares.
 */
export type AnswerKind = 'duration' | 'money' | 'age' | 'clock' | 'distance' | 'when' | 'count';

const NUMBER_WORD =
  '(?:\\d+(?:[.,:]\\d+)?|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|hundred)';
const DURATION_UNIT =
  '(?:business\\s+|working\\s+|calendar\\s+)?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)';
const ANSWER_KINDS: readonly {
  readonly kind: AnswerKind;
  readonly question: RegExp;
  readonly answer: RegExp;
}[] = [
  {
    kind: 'age',
    question: /\bhow\s+old\b|\b(?:minimum|maximum|what)\s+age\b|\bage\s+(?:limit|requirement)/i,
    answer: new RegExp(
      `\\b${NUMBER_WORD}\\s*(?:\\+|years?\\s+(?:old|of\\s+age)|-year-old)|\\b(?:under|over|aged?)\\s+\\d+`,
      'i',
    ),
  },
  {
    kind: 'duration',
    question:
      /\bhow\s+(?:long|fast|quickly|soon)\b|\bhow\s+many\s+(?:business\s+|working\s+)?(?:seconds|minutes|hours|days|weeks|months|years)\b/i,
    answer: new RegExp(
      `\\b${NUMBER_WORD}\\s*(?:-|–|to)?\\s*(?:\\d+\\s*)?${DURATION_UNIT}\\b|\\b(?:next|same)\\s+(?:business\\s+)?day\\b|\\b(?:immediately|instantly|overnight)\\b`,
      'i',
    ),
  },
  {
    kind: 'money',
    question: /\bhow\s+much\b|\bwhat\s+(?:does|do|is|are)\b.*\b(?:cost|price|fee)s?\b/i,
    answer:
      /[$€£]\s?\d|\b\d+(?:[.,]\d+)?\s*(?:euros?|dollars?|cents?|pounds?|usd|eur|gbp)\b|\bfree\b/i,
  },
  {
    kind: 'clock',
    question: /\bwhat\s+time\b|\bat\s+what\s+hour\b|\bopening\s+hours\b/i,
    answer: /\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)|\b(?:noon|midnight)\b/i,
  },
  {
    kind: 'distance',
    question: /\bhow\s+far\b/i,
    answer: /\b\d+(?:[.,]\d+)?\s*(?:km|kilomet(?:er|re)s?|miles?|met(?:er|re)s?|m)\b/i,
  },
  {
    kind: 'when',
    question: /^\s*when\b/i,
    answer:
      /\b(?:when|whenever|if|unless|after|before|once|until|as soon as|every|each time|at the (?:start|end))\b/i,
  },
  {
    kind: 'count',
    question: /\bhow\s+many\b/i,
    answer: new RegExp(`\\b${NUMBER_WORD}\\b`, 'i'),
  },
];

/** The kind of answer a question asks for, if it asks for a quantity. */
export function answerKindOf(question: string): AnswerKind | undefined {
  return ANSWER_KINDS.find((entry) => entry.question.test(question))?.kind;
}

/** Whether a sentence states an answer of the given kind. */
function statesKind(text: string, kind: AnswerKind): boolean {
  return ANSWER_KINDS.find((entry) => entry.kind === kind)!.answer.test(text);
}

interface Scored {
  readonly candidate: Candidate;
  /** Share of the question's term weight the sentence contains. */
  readonly coverage: number;
  /** How well it answers the question (see `sentenceScore`), whatever its source's rank. */
  readonly match: number;
  /** `match` weighed by its source's retrieval rank: what the lead is chosen by. */
  readonly score: number;
}

// Constants chosen on the tune half of the docs questions (`bench/extractive-answers.ts`).
// A sentence containing every neighbouring pair of question terms, in order and side by side,
// scores this much more than its coverage alone.
const PHRASE_BONUS = 1;
// Terms at most this many content words apart count as standing together (1: next to each
// other, stop words aside).
const PHRASE_WINDOW = 1;
// A table row's cells state less than a sentence: its score is weighted by this, unless its
// first cell (the key the row describes) names a question term.
const TABLE_ROW_WEIGHT = 0.6;
// A sentence filed under a heading (or a table row under a key) naming all the question's
// terms scores this much more: the section is about the question.
const HEADING_BONUS = 1;
// A sentence whose first content word is a question term is about it, not merely naming it
// in passing: it scores this much more, times that term's share of the question.
const SUBJECT_BONUS = 0.5;
// Each step down the retrieval ranking weighs a sentence by this: a lower-ranked source wins
// only when it matches the question clearly better (> 11 % per rank), not on a near-tie.
const RANK_DECAY = 0.9;

/**
 * Share of the question's neighbouring term pairs found in order, close together, in a
 * sentence. Pairs are taken over the question terms the sentence contains, so a question
 * word the sentence lacks ("how many retries *happen* after the first attempt") does not
 * break the phrase around it; the share is over all of the question's pairs.
 */
function phraseShare(candidate: Candidate, terms: readonly string[]): number {
  if (terms.length < 2) return 0;
  const { sequence } = candidate;
  const present = terms.filter((term) => candidate.terms.has(term));
  let found = 0;
  for (let pair = 1; pair < present.length; pair++) {
    const left = present[pair - 1]!;
    const right = present[pair]!;
    const near = sequence.some(
      (term, index) =>
        term === left && sequence.slice(index + 1, index + 1 + PHRASE_WINDOW).includes(right),
    );
    if (near) found++;
  }
  return found / (terms.length - 1);
}

// Another document's sentence joins only when it adds a question term no chosen sentence has
// and answers at least this share as well as the lead (rank aside): as well as the lead.
const OTHER_SOURCE_SHARE = 1;
// A sentence of the lead's document that adds a question term must score this share of the lead.
const ADD_SHARE = 0.5;
// A sentence of the lead's document adding no term joins when it scores this share of the
// lead and contains every question term the lead contains.
const CLOSE_SHARE = 0.75;

function answerFromSources(
  candidates: readonly Candidate[],
  terms: readonly string[],
  kind: AnswerKind | undefined,
  options: AnswerOptions,
  ownTerms?: ReadonlySet<string>,
): ExtractiveAnswer {
  const weights = inverseFrequencies(candidates, terms);
  if (ownTerms !== undefined && ownTerms.size > 0) {
    for (const term of ownTerms) {
      const weight = weights.get(term);
      if (weight !== undefined) weights.set(term, weight * OWN_TERM_WEIGHT);
    }
  }
  let totalWeight = 0;
  for (const weight of weights.values()) totalWeight += weight;
  if (totalWeight === 0) return { text: NO_ANSWER_TEXT, certainty: 0 };
  const shareOf = (set: ReadonlySet<string>): number => {
    let weight = 0;
    for (const term of terms) if (set.has(term)) weight += weights.get(term) ?? 0;
    return weight / totalWeight;
  };

  let scored: Scored[] = [];
  for (const candidate of candidates) {
    // A question in a source (a FAQ entry, a quoted question) asks; it does not answer.
    if (isQuestion(candidate.text)) continue;
    const coverage = shareOf(candidate.terms);
    if (coverage > 0 && coverage >= options.minCoverage) {
      const match = sentenceScore(candidate, coverage, terms, weights, totalWeight, shareOf);
      scored.push({ candidate, coverage, match, score: match * RANK_DECAY ** candidate.rank });
    }
  }
  // A question asking for a quantity is answered by sentences that state one, when any of
  // them is about as relevant as the best sentence overall.
  let kindMatched = kind === undefined;
  if (kind !== undefined) {
    const top = Math.max(0, ...scored.map((item) => item.score));
    const ofKind = scored.filter(
      (item) => item.score >= top / 2 && statesKind(item.candidate.text, kind),
    );
    if (ofKind.length > 0) {
      scored = ofKind;
      kindMatched = true;
    }
  }
  // Ties go to the earlier source (sources arrive best first), then the earlier sentence.
  scored.sort((a, b) => b.score - a.score || a.candidate.order - b.candidate.order);

  const chosen = selectSentences(scored, terms, options.maxSentences);
  if (chosen.length === 0) return { text: NO_ANSWER_TEXT, certainty: 0 };
  const covered = new Set(terms.filter((term) => chosen.some((item) => item.terms.has(term))));
  // Sentences on the topic that do not state the quantity asked for answer half of it.
  const share = Math.min(1, shareOf(covered)) * (kindMatched ? 1 : 0.5);
  return {
    text: chosen.map((candidate) => cite(candidate.text, candidate.label)).join(' '),
    certainty: round(share),
  };
}

/**
 * How well a sentence answers: its share of the question's term weight, raised when the
 * question's terms stand together in it as in the question, when the heading it is filed
 * under names them, and when it opens with one (it is about it); lowered for a table row
 * whose key names none of them.
 */
function sentenceScore(
  candidate: Candidate,
  coverage: number,
  terms: readonly string[],
  weights: ReadonlyMap<string, number>,
  totalWeight: number,
  shareOf: (set: ReadonlySet<string>) => number,
): number {
  const heading = shareOf(candidate.heading);
  const keyed = candidate.tableRow && heading > 0;
  const subject = candidate.sequence[0];
  const subjectShare =
    subject !== undefined && terms.includes(subject)
      ? (weights.get(subject) ?? 0) / totalWeight
      : 0;
  return (
    coverage *
    (candidate.tableRow && !keyed ? TABLE_ROW_WEIGHT : 1) *
    (1 + PHRASE_BONUS * phraseShare(candidate, terms)) *
    (1 + HEADING_BONUS * heading) *
    (1 + SUBJECT_BONUS * subjectShare)
  );
}

/**
 * The sentences that answer, best first. The lead is the highest-scoring sentence (its score
 * already weighs its source's rank; an exact tie goes to the earlier source). The answer then
 * quotes the lead's document (its source, or another chunk of the same document): a sentence
 * of it joins when it adds a question term no chosen sentence has (scoring at least
 * `ADD_SHARE` of the lead), or scores within `CLOSE_SHARE` of the lead and contains every
 * question term the lead contains. A sentence of another document joins only when it adds a
 * missing question term and answers as well as the lead (`OTHER_SOURCE_SHARE`): no filler
 * from other sources. Joining is judged by how well a sentence answers, without its source's
 * rank. Near-duplicates are skipped.
 */
function selectSentences(
  scored: readonly Scored[],
  terms: readonly string[],
  limit: number,
): Candidate[] {
  const lead = scored[0];
  if (!lead) return [];
  const chosen: Candidate[] = [lead.candidate];
  const leadTerms = terms.filter((term) => lead.candidate.terms.has(term));
  const covered = new Set(leadTerms);
  for (const { candidate, match } of scored) {
    if (chosen.length >= limit) break;
    if (candidate === lead.candidate) continue;
    if (chosen.some((other) => isNearDuplicate(other, candidate))) continue;
    const addsTerm = terms.some((term) => candidate.terms.has(term) && !covered.has(term));
    const joins =
      candidate.document === lead.candidate.document
        ? (addsTerm && match >= lead.match * ADD_SHARE) ||
          (match >= lead.match * CLOSE_SHARE &&
            leadTerms.every((term) => candidate.terms.has(term)))
        : addsTerm && match >= lead.match * OTHER_SOURCE_SHARE;
    if (!joins) continue;
    chosen.push(candidate);
    for (const term of terms) if (candidate.terms.has(term)) covered.add(term);
  }
  return chosen;
}

function isNearDuplicate(a: Candidate, b: Candidate): boolean {
  if (a.text === b.text) return true;
  let shared = 0;
  for (const term of a.terms) if (b.terms.has(term)) shared++;
  const union = a.terms.size + b.terms.size - shared;
  return union > 0 && shared / union >= 0.7;
}

/**
 * SumBasic: repeatedly take the sentence whose terms are most frequent in the whole text, then
 * square the probabilities of its terms so the next pick covers something else. Chosen
 * sentences are returned in their original order.
 */
function summarize(
  candidates: readonly Candidate[],
  limit: number,
  withCitations: boolean,
): ExtractiveAnswer {
  if (candidates.length === 0) return { text: NO_ANSWER_TEXT, certainty: 0 };
  const probability = new Map<string, number>();
  let total = 0;
  for (const candidate of candidates) {
    for (const term of candidate.terms) {
      probability.set(term, (probability.get(term) ?? 0) + 1);
      total++;
    }
  }
  for (const [term, count] of probability) probability.set(term, count / total);
  const initial = new Map(probability);

  const chosen: Candidate[] = [];
  const remaining = [...candidates];
  while (chosen.length < limit && remaining.length > 0) {
    let bestIndex = -1;
    let bestScore = -1;
    remaining.forEach((candidate, index) => {
      let sum = 0;
      for (const term of candidate.terms) sum += probability.get(term) ?? 0;
      const score = sum / candidate.terms.size;
      if (score > bestScore) {
        bestScore = score;
        bestIndex = index;
      }
    });
    const [pick] = remaining.splice(bestIndex, 1);
    if (!pick || chosen.some((other) => isNearDuplicate(other, pick))) continue;
    chosen.push(pick);
    for (const term of pick.terms) probability.set(term, (probability.get(term) ?? 0) ** 2);
  }
  chosen.sort((a, b) => a.order - b.order);

  const covered = new Set(chosen.flatMap((candidate) => [...candidate.terms]));
  let mass = 0;
  for (const term of covered) mass += initial.get(term) ?? 0;
  return {
    text: chosen.map((item) => (withCitations ? cite(item.text, item.label) : item.text)).join(' '),
    certainty: round(Math.min(1, mass)),
  };
}

/** Appends `[source: label]` to a sentence, before its final punctuation. */
function cite(sentence: string, label: string | undefined): string {
  if (label === undefined) return sentence;
  const tag = `[source: ${label}]`;
  const match = /([.!?…]+["'”’)\]]*)$/.exec(sentence);
  if (!match) return `${sentence} ${tag}.`;
  return `${sentence.slice(0, match.index).trimEnd()} ${tag}${match[1]}`;
}

function smallTalk(question: string): ExtractiveAnswer {
  if (GREETING.test(question)) return { text: 'Hello! Ask me a question about your documents.' };
  if (FAREWELL.test(question)) return { text: 'Goodbye!' };
  if (THANKS.test(question)) return { text: "You're welcome." };
  return { text: NO_SOURCES_TEXT, certainty: 0 };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Tokens, deltas, timing

/** Approximate tokens of a text: each word counts one token per four characters, at least one. */
export function approximateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(/\S+/g)) tokens += Math.max(1, Math.ceil(match[0].length / 4));
  return tokens;
}

function countTokens(text: string, tokenizer: Tokenizer | undefined): number {
  return tokenizer ? tokenizer.count(text) : approximateTokens(text);
}

function inputText(request: LLMRequest): string {
  const parts = [request.system ?? '', ...request.messages.map((message) => message.content)];
  for (const source of request.sources ?? []) {
    if (!request.system?.includes(source.text)) parts.push(source.text);
  }
  return parts.join('\n');
}

/**
 * The stream's deltas: each a word (a citation tag with its trailing punctuation counts as one)
 * plus the white space after it. They concatenate exactly to `text`.
 */
export function splitDeltas(text: string): string[] {
  return text.match(/\s*(?:\[\s*source\s*:[^\]]*\]|\S)+\s*|\s+/gi) ?? [];
}

/** The longest prefix of whole deltas within `maxTokens`, and whether it was cut. */
function limitTokens(
  text: string,
  maxTokens: number | undefined,
  tokenizer: Tokenizer | undefined,
): { text: string; truncated: boolean } {
  if (maxTokens === undefined || countTokens(text, tokenizer) <= maxTokens) {
    return { text, truncated: false };
  }
  let kept = '';
  for (const delta of splitDeltas(text)) {
    if (countTokens(kept + delta, tokenizer) > maxTokens) break;
    kept += delta;
  }
  return { text: kept.trimEnd(), truncated: true };
}
