/**
 * Reading a cortexis answer's sources back out of an AI SDK `UIMessage`, typed, without casts:
 * the `source-document` and `source-url` parts carry `providerMetadata.cortexis`
 * ({@link CortexisSourceMetadata}), which the AI SDK types only as JSON. Runtime-neutral (a
 * front end imports it from `cortexis`); what does not have the expected shape is left out.
 * @module
 */
import type { CortexisSourceMetadata } from './ui-message-stream.js';

/** A UI message part as these helpers read it (any part of the AI SDK's `UIMessage` fits). */
export interface UIPartLike {
  readonly type: string;
}

/** One source of an answer, as a front end renders it. */
export interface CortexisUISource extends CortexisSourceMetadata {
  /** The label the answer cites: `S1`…`Sn`. */
  readonly sourceId: string;
  /** The document's title (its id when it has none). */
  readonly title: string;
  /** The link to show: the `source-url` part's URL (an http(s) `uri`), or null. */
  readonly url: string | null;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}

const nullableString = (value: unknown): value is string | null =>
  value === null || typeof value === 'string';

/**
 * The cortexis metadata of a `source-document` or `source-url` part (its
 * `providerMetadata.cortexis`), or undefined when the part has none or it is malformed.
 *
 * @example
 * ```tsx
 * message.parts.map((part) => {
 *   const source = part.type === 'source-document' ? readSourceMetadata(part) : undefined;
 *   return source && <li key={source.chunkId}>{source.snippet} ({source.score.toFixed(2)})</li>;
 * });
 * ```
 */
export function readSourceMetadata(part: UIPartLike): CortexisSourceMetadata | undefined {
  if (part.type !== 'source-document' && part.type !== 'source-url') return undefined;
  const meta = field(field(part, 'providerMetadata'), 'cortexis');
  const documentId = field(meta, 'documentId');
  const chunkId = field(meta, 'chunkId');
  const uri = field(meta, 'uri');
  const snippet = field(meta, 'snippet');
  const score = field(meta, 'score');
  const section = field(meta, 'section') ?? null;
  if (
    typeof documentId !== 'string' ||
    typeof chunkId !== 'string' ||
    !nullableString(uri) ||
    typeof snippet !== 'string' ||
    typeof score !== 'number' ||
    !Number.isFinite(score) ||
    !nullableString(section)
  ) {
    return undefined;
  }
  return { documentId, chunkId, uri, snippet, score, section };
}

/**
 * The sources of a cortexis answer's UI message, in the order sent (`S1` first), each with its
 * link when the answer sent a `source-url` part for it.
 *
 * @example
 * ```tsx
 * for (const source of cortexisSources(message)) {
 *   render(source.sourceId, source.title, source.url, source.section, source.snippet);
 * }
 * ```
 */
export function cortexisSources(message: {
  readonly parts: readonly UIPartLike[];
}): CortexisUISource[] {
  const sources = new Map<string, CortexisUISource>();
  for (const part of message.parts) {
    const meta = readSourceMetadata(part);
    const sourceId = field(part, 'sourceId');
    const title = field(part, 'title');
    if (meta === undefined || typeof sourceId !== 'string') continue;
    const known = sources.get(sourceId);
    const url = part.type === 'source-url' ? field(part, 'url') : undefined;
    sources.set(sourceId, {
      ...meta,
      sourceId,
      title: known?.title ?? (typeof title === 'string' ? title : meta.documentId),
      url: typeof url === 'string' ? url : (known?.url ?? null),
    });
  }
  return [...sources.values()];
}
