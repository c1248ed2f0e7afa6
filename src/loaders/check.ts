import type { IngestDocument } from '../types.js';
import { describeIssues, safeParse } from '../util/schema.js';
import { documentSchema } from '../validate.js';

/** The most characters of a reason that quotes what a file holds. */
const REASON_LENGTH = 300;

/**
 * Why `engine.ingest` would refuse a loaded document (the engine's own schema: ids, text,
 * title, uri and metadata keys and values), or undefined when it would take it.
 */
export function storableDocumentProblem(
  document: IngestDocument,
  maxTextLength: number,
): { code: 'invalid' | 'too-large'; reason: string } | undefined {
  const parsed = safeParse(documentSchema(), document);
  if (!parsed.success) {
    const reason = `not indexable: ${describeIssues(parsed.issues)}`;
    const bounded = reason.length > REASON_LENGTH ? `${reason.slice(0, REASON_LENGTH)}…` : reason;
    return { code: 'invalid', reason: bounded };
  }
  if (document.text.length > maxTextLength) {
    const reason = `text of ${document.text.length} characters, more than maxTextLength (${maxTextLength})`;
    return { code: 'too-large', reason };
  }
  return undefined;
}
