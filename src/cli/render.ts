import type { Confidence, Source } from '../ports/chat-records.js';

/** A text progress bar, e.g. `[#####-----] 50% 10/20 documents`. */
export function progressBar(done: number, total: number, width = 24): string {
  const ratio = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(ratio * 100)}% ${done}/${total} documents`;
}

/** The sources block printed under an answer. */
export function renderSources(sources: readonly Source[]): string {
  if (sources.length === 0) return 'Sources: none';
  const lines = sources.map(
    (source) =>
      `  [${source.id}] ${source.title ?? source.documentId} (${source.documentId}) score ${source.score.toFixed(2)}`,
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
