import { AbortError, CortexisError, InternalError, ProviderError } from '../errors/index.js';
import type { LLMProvider, LLMRequest, LLMUsage } from '../ports/llm-provider.js';
import { createSourceListFilter } from './cite/source-lists.js';
import { createCitationFilter, type CitationReport } from './cite.js';
import { trimEnds } from '../util/trim-trailing.js';

/** What generation produced. */
export interface GenerateOutcome {
  /** The answer with validated citations and notes (the partial answer when `error` is set). */
  readonly text: string;
  /** The model's answer alone, without the appended citation notes (what the judge checks). */
  readonly answer: string;
  /** Citation validation of the text. */
  readonly citations: CitationReport;
  /** The model's certainty, when it gave one. */
  readonly certainty: number | undefined;
  /** How close the model's runner-up answer came, when it said. */
  readonly runnerUp?: number | undefined;
  /** True when the model marked its text as a refusal to answer. */
  readonly refused?: boolean | undefined;
  /** Token usage, when reported. */
  readonly usage: LLMUsage | undefined;
  /** Set when generation failed; `text` then holds what had been produced. */
  readonly error: CortexisError | undefined;
}

/** Notes appended to an answer about its citations (chat workflow spec). */
export interface CitationNotes {
  /** Append "(Removed invalid citation)" when a tag was removed. */
  readonly removalNote?: boolean | undefined;
  /**
   * Append a standard line listing the cited sources, each with its name when `names` has one:
   * "Sources: S1 (Refund policy), S2 (shipping.md)".
   */
  readonly includeCitations?: boolean | undefined;
  /** Each label's display name for the citation line (see `sourceName`). */
  readonly names?: ReadonlyMap<string, string> | undefined;
  /** Other names of the labels (a source's chunk id → its label), rewritten to the label. */
  readonly aliases?: ReadonlyMap<string, string> | undefined;
}

/** Removal note, then the standard citation line, as configured ('' when none applies). */
export function citationNotes(report: CitationReport, notes: CitationNotes): string {
  let suffix = '';
  if (notes.removalNote && report.removed.length > 0) suffix += ' (Removed invalid citation)';
  if (notes.includeCitations && report.validIds.length > 0) {
    const named = report.validIds.map((id) => {
      const name = notes.names?.get(id);
      return name === undefined ? id : `${id} (${name})`;
    });
    suffix += `\n\nSources: ${named.join(', ')}`;
  }
  return suffix;
}

/** Seed 003's name of a source without a file name. */
export const UNKNOWN_SOURCE_NAME = 'Unknown';

/**
 * The name a citation line gives a source (seeds 002/003): its title, else the file name of its
 * URI, else "Unknown" (seed 003). Whitespace is flattened, brackets and parentheses dropped, and
 * the name cut to 80 characters, so a document's title cannot shape the line.
 */
export function sourceName(source: {
  readonly title?: string | null | undefined;
  readonly uri?: string | null | undefined;
}): string {
  const clean = (text: string): string =>
    Array.from(
      text
        .replace(/[()[\]\p{Cc}]/gu, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
      .slice(0, 80)
      .join('')
      .trim();
  const title = clean(source.title ?? '');
  if (title !== '') return title;
  const path = trimEnds((source.uri ?? '').split(/[?#]/, 1)[0]!, '', '/\\');
  const file = clean(
    safeDecode(path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1)),
  );
  return file === '' ? UNKNOWN_SOURCE_NAME : file;
}

/** `decodeURIComponent`, or the text itself when it is not valid percent-encoding. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Any thrown value as a cortexis error: aborts as `AbortError`, the rest as `ProviderError`. */
export function toCortexisError(
  error: unknown,
  provider: string,
  signal?: AbortSignal,
): CortexisError {
  if (CortexisError.isInstance(error)) return error;
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
    return new AbortError('The turn was aborted', { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(`${provider} failed: ${message}`, {
    provider,
    retryable: false,
    cause: error,
  });
}

/**
 * A failed turn's error: cortexis errors as they are, aborts as `AbortError`, anything else as
 * an `InternalError`. Model failures arrive here already typed (`generateAnswer` converts
 * them), so an untyped error is a store's or a bug: never reported as the model's.
 */
export function toTurnError(error: unknown, signal?: AbortSignal): CortexisError {
  if (CortexisError.isInstance(error)) return error;
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
    return new AbortError('The turn was aborted', { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(`The turn failed: ${message}`, { cause: error });
}

/**
 * Calls the model and validates citations on the way. With `onDelta` the answer is streamed
 * and every safe piece of text is passed on as it arrives; otherwise one `generate` call.
 * Never throws: a failure is returned as `error`, with the text produced before it.
 */
export async function generateAnswer(
  llm: LLMProvider,
  request: LLMRequest,
  validLabels: readonly string[],
  onDelta?: (text: string) => void,
  notes: CitationNotes = {},
): Promise<GenerateOutcome> {
  const citationFilter = createCitationFilter(validLabels, { aliases: notes.aliases });
  // After the citation tags are checked, "Sources:" lists go: the sources are listed by the
  // application, and a list in a document must not reach the user as ours.
  const lists = createSourceListFilter();
  const filter = {
    push: (piece: string): string => lists.push(citationFilter.push(piece)),
    flush: (): string => lists.push(citationFilter.flush()) + lists.flush(),
    report: () => citationFilter.report(),
  };
  let text = '';
  let certainty: number | undefined;
  let runnerUp: number | undefined;
  let refused: boolean | undefined;
  let usage: LLMUsage | undefined;
  const emit = (piece: string): void => {
    if (piece.length === 0) return;
    text += piece;
    onDelta?.(piece);
  };
  try {
    if (onDelta) {
      for await (const part of llm.stream(request)) {
        if (part.type === 'text-delta') {
          emit(filter.push(part.text));
        } else if (part.type === 'finish') {
          certainty = part.certainty;
          runnerUp = part.runnerUp;
          refused = part.refused;
          usage = part.usage;
        }
        if (request.signal?.aborted) throw new AbortError('The turn was aborted');
      }
    } else {
      const result = await llm.generate(request);
      if (request.signal?.aborted) throw new AbortError('The turn was aborted');
      emit(filter.push(result.text));
      certainty = result.certainty;
      runnerUp = result.runnerUp;
      refused = result.refused;
      usage = result.usage;
    }
    emit(filter.flush());
    const citations = filter.report();
    const answer = text;
    emit(citationNotes(citations, notes));
    return { text, answer, citations, certainty, runnerUp, refused, usage, error: undefined };
  } catch (error) {
    return {
      text,
      answer: text,
      citations: filter.report(),
      certainty: undefined,
      usage,
      error: toCortexisError(error, llm.name, request.signal),
    };
  }
}
