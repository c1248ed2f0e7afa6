/** A value a span attribute may hold (the OpenTelemetry attribute value types). */
export type TraceAttributeValue =
  string | number | boolean | readonly string[] | readonly number[] | readonly boolean[];

/** Span attributes by key; `undefined` values are skipped. */
export type TraceAttributes = Readonly<Record<string, TraceAttributeValue | undefined>>;

/** How a span relates to the outside: work in this process, or a call to another service. */
export type TraceSpanKind = 'internal' | 'client';

/** Options of {@link Tracer.startSpan}. */
export interface TraceSpanOptions {
  /** Attributes known when the span starts (those that sampling may look at). */
  readonly attributes?: TraceAttributes | undefined;
  /** `client` for a call to a model or store in another process; default `internal`. */
  readonly kind?: TraceSpanKind | undefined;
  /** The enclosing span; without it, the tracer's current (ambient) context is the parent. */
  readonly parent?: TraceSpan | undefined;
}

/** One timed operation of a trace. Its methods never throw. */
export interface TraceSpan {
  /** Adds or overwrites attributes (`undefined` values are skipped). */
  setAttributes(attributes: TraceAttributes): void;
  /** Records a failure: the error as an exception and the span's status as error. */
  recordError(error: unknown): void;
  /** Ends the span; later calls do nothing. */
  end(): void;
}

/**
 * Where the engine reports spans: one per turn with a child per stage, one per `search` and
 * per `ingest`. Opt-in through `createChatEngine({ tracer })`; `cortexis/opentelemetry`
 * implements it over OpenTelemetry. Methods never throw.
 */
export interface Tracer {
  /** Adapter name. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /**
   * Whether spans may carry message and document text (prompts, answers, queries). Default
   * false: spans carry ids, counts, scores and timings only.
   */
  readonly recordContent?: boolean | undefined;
  /** Starts a span. */
  startSpan(name: string, options?: TraceSpanOptions): TraceSpan;
  /**
   * Runs `fn` with `span` as the tracer's current context, so spans other instrumentation
   * starts inside (an HTTP client's, a database driver's) become its children. Optional.
   */
  withSpan?<T>(span: TraceSpan, fn: () => T): T;
}
