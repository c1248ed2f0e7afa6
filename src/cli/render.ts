import type { Confidence, Source } from '../ports/chat-records.js';
import type { ChatResponse } from '../types.js';

/** A text progress bar, e.g. `[#####-----] 50% 10/20 documents`. */
export function progressBar(done: number, total: number, width = 24, unit = 'documents'): string {
  const ratio = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(ratio * 100)}% ${done}/${total} ${unit}`;
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

/** The sources block printed under an answer, best first. */
export function renderSources(sources: readonly Source[]): string {
  if (sources.length === 0) return 'Sources: none';
  const lines = sortByScore(sources).map(
    (source) =>
      `  [${source.id}] ${source.title ?? source.documentId} (${source.documentId}${pagesOf(source)}) score ${source.score.toFixed(2)}`,
  );
  return ['Sources:', ...lines].join('\n');
}

/** The confidence line printed under an answer. */
export function renderConfidence(confidence: Confidence): string {
  const parts = [
    `quality ${confidence.sourceQuality.toFixed(2)}`,
    `diversity ${confidence.sourceDiversity.toFixed(2)}`,
    `cohesion ${confidence.semanticCohesion.toFixed(2)}`,
  ];
  if (confidence.llmCertainty !== null)
    parts.push(`certainty ${confidence.llmCertainty.toFixed(2)}`);
  return `Confidence: ${confidence.level} ${confidence.overall.toFixed(2)} (${parts.join(', ')})`;
}

/** The answer of `ask --json`: one object, sources best first. */
export function answerJson(response: ChatResponse, route: string | null): Record<string, unknown> {
  return {
    answer: response.text,
    sources: sortByScore(response.sources).map((source) => ({
      id: source.id,
      documentId: source.documentId,
      title: source.title ?? null,
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
