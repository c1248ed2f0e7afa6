import type { Confidence, Source } from '../ports/chat-records.js';
import type { ChatResponse } from '../types.js';

/** A text progress bar, e.g. `[#####-----] 50% 10/20 documents`. */
export function progressBar(done: number, total: number, width = 24, unit = 'documents'): string {
  const ratio = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(ratio * 100)}% ${done}/${total} ${unit}`;
}

/** A count and its noun, singular for one: `1 document`, `2 documents`, `0 chunks`. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

/**
 * A duration for humans: `42s`, `3m 05s`, `1h 02m`.
 */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/**
 * A progress line with the estimated time left, from the rate so far:
 * `[####----] 50% 10/20 documents, ETA 12s`. No estimate before the first document is done.
 */
export function progressLine(
  done: number,
  total: number,
  elapsedMs: number,
  unit = 'documents',
): string {
  const bar = progressBar(done, total, 24, unit);
  if (done === 0 || done >= total) return bar;
  return `${bar}, ETA ${formatDuration((elapsedMs / done) * (total - done))}`;
}

/** Sources best first (highest score); ties keep their label order. */
export function sortByScore(sources: readonly Source[]): Source[] {
  return sources
    .map((source, index) => ({ source, index }))
    .sort((a, b) => b.source.score - a.source.score || a.index - b.index)
    .map(({ source }) => source);
}

/** Where in its document a source is: `p. 2` or `pp. 2–3` for paged documents (PDF). */
function pagesOf(source: Source): string {
  const { page, pageEnd } = source.metadata;
  if (typeof page !== 'number') return '';
  return typeof pageEnd === 'number' && pageEnd !== page
    ? `, pp. ${page}–${pageEnd}`
    : `, p. ${page}`;
}

/** Printed snippets stop near this many characters. */
const PRINTED_SNIPPET = 140;

/** Text safe to print on a terminal: control characters (escape sequences, NUL) become spaces. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}

/**
 * Where a source sits in its document, for a reader: its heading path without the document's
 * own title (the first heading, shown when the source sits under nothing else), else the title
 * or the document id.
 */
export function sourcePlace(source: Source): string {
  const path = (source.section ?? '').split(' › ').filter((heading) => heading.trim() !== '');
  if (path.length > 1 && path[0] === source.title) path.shift();
  const place = path.length > 0 ? path.join(' › ') : (source.title ?? source.documentId);
  return printable(place).replace(/\s+/g, ' ').trim();
}

/** A source's snippet, flattened and cut near `PRINTED_SNIPPET` characters at a word. */
function printedSnippet(snippet: string): string {
  const wasCut = snippet.trimEnd().endsWith('…');
  const flat = printable(snippet).replace(/\s+/g, ' ').trim().replace(/…$/, '');
  if (flat.length <= PRINTED_SNIPPET) return wasCut ? `${flat}…` : flat;
  const cut = flat.slice(0, PRINTED_SNIPPET);
  const space = cut.lastIndexOf(' ');
  return `${(space > PRINTED_SNIPPET * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The sources block printed under an answer, in label order (S1 first, the retrieval's rank):
 * each source's section (heading path), file, page and score, then a short snippet.
 */
export function renderSources(sources: readonly Source[]): string {
  if (sources.length === 0) return 'Sources: none';
  const lines = sources.flatMap((source) => {
    const head = `  [${source.id}] ${sourcePlace(source)} (${printable(source.documentId)}${pagesOf(source)}) score ${source.score.toFixed(2)}`;
    const snippet = printedSnippet(source.snippet);
    return snippet === '' ? [head] : [head, `       ${snippet}`];
  });
  return ['Sources:', ...lines].join('\n');
}

/** What a confidence score may carry besides its factors and weights (how it was computed). */
type ConfidenceTerms = Confidence & {
  readonly mode?: string | undefined;
  readonly fitted?:
    | {
        readonly bias: number;
        readonly topScoreWeight: number;
        readonly topScore: number;
        readonly probability: number;
        readonly calibration: readonly (readonly [number, number])[] | null;
      }
    | undefined;
  readonly cappedAt?: number | null | undefined;
};

const FACTOR_NAMES = {
  sourceQuality: 'quality',
  sourceDiversity: 'diversity',
  semanticCohesion: 'cohesion',
  graphContext: 'graph',
  llmCertainty: 'certainty',
} as const;

/**
 * The confidence line printed under an answer: the level and `overall`, then the breakdown it
 * comes from, each factor with the weight applied (`quality 0.66×0.40`), and what else the
 * score reports (its mode, the fitted model's bias, top score and probability, a cap and the
 * reasons for it, as `confidence.capped` names them).
 */
export function renderConfidence(confidence: Confidence): string {
  const terms = confidence as ConfidenceTerms;
  const parts = (Object.keys(FACTOR_NAMES) as (keyof typeof FACTOR_NAMES)[]).flatMap((name) => {
    const value = confidence[name];
    const weight = confidence.weights[name];
    if (value === null && !weight) return [];
    return [
      `${FACTOR_NAMES[name]} ${value === null ? '—' : value.toFixed(2)}×${weight.toFixed(2)}`,
    ];
  });
  const fitted = terms.fitted;
  if (fitted) {
    parts.push(`top score ${fitted.topScore.toFixed(2)}×${fitted.topScoreWeight.toFixed(2)}`);
    parts.push(`bias ${fitted.bias.toFixed(2)}`);
    parts.push(`probability ${fitted.probability.toFixed(3)}`);
    if (fitted.calibration) parts.push('calibrated');
  }
  if (terms.cappedAt != null) {
    const why = confidence.capped?.length ? ` by ${confidence.capped.join(' and ')}` : '';
    parts.push(`capped at ${terms.cappedAt.toFixed(3)}${why}`);
  }
  const mode = terms.mode ? `${terms.mode}: ` : '';
  return `Confidence: ${confidence.level} ${confidence.overall.toFixed(2)} (${mode}${parts.join(', ')})`;
}

/** The answer of `ask --json`: one object, sources in label order. */
export function answerJson(response: ChatResponse, route: string | null): Record<string, unknown> {
  return {
    answer: response.text,
    sources: response.sources.map((source) => ({
      id: source.id,
      documentId: source.documentId,
      title: source.title ?? null,
      section: source.section ?? null,
      uri: source.uri ?? null,
      score: source.score,
      snippet: source.snippet,
      metadata: source.metadata,
    })),
    confidence: response.confidence,
    grounding: response.grounding,
    citations: response.citations,
    route,
    guard: response.guard,
    refused: response.refused,
    status: response.status,
    model: response.model,
    sessionId: response.sessionId,
    messageId: response.messageId,
  };
}
