import type { TraceAttributes, TraceSpan, TraceSpanKind, Tracer } from '../ports/tracer.js';

/** Name of the span of one turn (`engine.chat` / `engine.stream`). */
export const TURN_SPAN = 'cortexis.turn';

/** Name of the span of one `engine.ingest`. */
export const INGEST_SPAN = 'cortexis.ingest';

/**
 * Where a turn's stage spans go: the tracer and the turn span. `undefined` when tracing is
 * off, so that an untraced turn allocates nothing for it.
 */
export interface TraceScope {
  /** The tracer. */
  readonly tracer: Tracer;
  /** The span stage spans are children of. */
  readonly parent: TraceSpan;
}

/** Options of a stage span. */
export interface StageOptions {
  /** Attributes known at the start. */
  readonly attributes?: TraceAttributes | undefined;
  /** Span kind (default `internal`). */
  readonly kind?: TraceSpanKind | undefined;
}

/** The scope of a turn's stages, or `undefined` when the turn is not traced. */
export function traceScope(
  tracer: Tracer | undefined,
  parent: TraceSpan | undefined,
): TraceScope | undefined {
  return tracer && parent ? { tracer, parent } : undefined;
}

/**
 * Runs one stage in a child span of the scope: an error thrown is recorded on the span (and
 * rethrown); the span ends when the stage settles. Without a scope, just runs the stage.
 */
export function inSpan<T>(
  scope: TraceScope | undefined,
  name: string,
  stage: (span: TraceSpan | undefined) => Promise<T>,
  options?: StageOptions | (() => StageOptions),
): Promise<T> {
  if (!scope) return stage(undefined);
  const { tracer } = scope;
  const span = tracer.startSpan(name, { ...resolve(options), parent: scope.parent });
  return runInSpan(tracer, span, stage);
}

/** {@link inSpan} for a synchronous stage. */
export function inSpanSync<T>(
  scope: TraceScope | undefined,
  name: string,
  stage: (span: TraceSpan | undefined) => T,
  options?: StageOptions | (() => StageOptions),
): T {
  if (!scope) return stage(undefined);
  const span = scope.tracer.startSpan(name, { ...resolve(options), parent: scope.parent });
  try {
    return stage(span);
  } catch (error) {
    span.recordError(error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs an engine operation (a turn, a search, an ingestion) in a root span started now — so
 * the caller's current context (a host's HTTP request span) is its parent. The operation's
 * error is recorded on the span. Without a tracer, just runs the operation.
 */
export function traceOperation<T>(
  tracer: Tracer | undefined,
  name: string,
  operation: (span: TraceSpan | undefined) => Promise<T>,
  options?: StageOptions | (() => StageOptions),
): Promise<T> {
  if (!tracer) return operation(undefined);
  return runInSpan(tracer, tracer.startSpan(name, resolve(options)), operation);
}

/** Options given as a function are built only when a span is started. */
function resolve(
  options: StageOptions | (() => StageOptions) | undefined,
): StageOptions | undefined {
  return typeof options === 'function' ? options() : options;
}

/** What the retrieval span reports of a result (structural: a turn's or a search's). */
export interface RetrievedForSpan {
  /** The chunks, best first. */
  readonly chunks: readonly { readonly chunkId: string; readonly score: number }[];
  /** Best score. */
  readonly topScore: number;
  /** Whether the query embedding came from the cache. */
  readonly cacheHit: boolean;
  /** Whether adaptive k widened the result. */
  readonly widened: boolean;
}

/** Options of the retrieval span (GenAI `retrieval` operation over the namespace). */
export function retrievalSpanOptions(namespace: string, k: number): StageOptions {
  return {
    attributes: {
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': namespace,
      'gen_ai.retrieval.top_k': k,
      'cortexis.stage': 'retrieve',
    },
  };
}

/** Name of the retrieval span: `retrieval <namespace>` (GenAI convention). */
export function retrievalSpanName(namespace: string): string {
  return `retrieval ${namespace}`;
}

/**
 * Attributes of a retrieval result. With `query` (the tracer records content) also the query
 * text and the retrieved chunk ids with their scores.
 */
export function retrievalAttributes(result: RetrievedForSpan, query?: string): TraceAttributes {
  return {
    'cortexis.source.count': result.chunks.length,
    'cortexis.retrieval.top_score': result.topScore,
    'cortexis.retrieval.cache_hit': result.cacheHit,
    'cortexis.retrieval.widened': result.widened,
    ...(query === undefined
      ? {}
      : {
          'gen_ai.retrieval.query.text': query,
          'gen_ai.retrieval.documents': JSON.stringify(
            result.chunks.map((chunk) => ({ id: chunk.chunkId, score: chunk.score })),
          ),
        }),
  };
}

/** Runs `work` as the span's current context; records its error; ends the span when it settles. */
function runInSpan<T>(
  tracer: Tracer,
  span: TraceSpan,
  work: (span: TraceSpan) => Promise<T>,
): Promise<T> {
  const run = (): Promise<T> => {
    let pending: Promise<T>;
    try {
      pending = work(span);
    } catch (error) {
      pending = Promise.reject(error);
    }
    return pending.then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        span.recordError(error);
        span.end();
        throw error;
      },
    );
  };
  return tracer.withSpan ? tracer.withSpan(span, run) : run();
}

/** The calls of an engine {@link traceEngineCalls} spans (structural: `ChatEngine`'s). */
interface SpannedCalls<Query, SearchOpts, Hit, Docs, IngestOpts, Ingested> {
  search(query: Query, options?: SearchOpts): Promise<Hit[]>;
  ingest(docs: Docs, options?: IngestOpts): Promise<Ingested>;
}

/**
 * Spans `engine.search` (a GenAI `retrieval` span) and `engine.ingest` (`cortexis.ingest`):
 * replaces both methods with traced ones. Turns are spanned by the turn itself.
 */
export function traceEngineCalls<
  Query extends string,
  SearchOpts extends { readonly k?: number | undefined } | undefined,
  Hit extends { readonly chunkId: string; readonly score: number },
  Docs extends readonly unknown[],
  IngestOpts,
  Ingested extends { readonly chunks: number; readonly removedChunks: number },
>(
  engine: SpannedCalls<Query, SearchOpts, Hit, Docs, IngestOpts, Ingested>,
  tracer: Tracer,
  namespace: string,
): void {
  const { search, ingest } = engine;
  engine.search = (query, options) =>
    traceOperation(
      tracer,
      retrievalSpanName(namespace),
      async (span) => {
        const hits = await search(query, options);
        span?.setAttributes({
          'cortexis.source.count': hits.length,
          'cortexis.retrieval.top_score': hits[0]?.score ?? 0,
          ...(tracer.recordContent
            ? {
                'gen_ai.retrieval.query.text': query,
                'gen_ai.retrieval.documents': JSON.stringify(
                  hits.map((hit) => ({ id: hit.chunkId, score: hit.score })),
                ),
              }
            : {}),
        });
        return hits;
      },
      () => ({
        attributes: {
          'gen_ai.operation.name': 'retrieval',
          'gen_ai.data_source.id': namespace,
          'gen_ai.retrieval.top_k': options?.k,
          'cortexis.stage': 'search',
        },
      }),
    );
  engine.ingest = (docs, options) =>
    traceOperation(
      tracer,
      INGEST_SPAN,
      async (span) => {
        const result = await ingest(docs, options);
        span?.setAttributes({
          'cortexis.ingest.chunks': result.chunks,
          'cortexis.ingest.removed_chunks': result.removedChunks,
        });
        return result;
      },
      () => ({
        attributes: {
          'gen_ai.data_source.id': namespace,
          'cortexis.ingest.documents': docs.length,
        },
      }),
    );
}
