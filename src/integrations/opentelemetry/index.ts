/**
 * `cortexis/opentelemetry`: the engine's spans as OpenTelemetry spans. One `cortexis.turn`
 * span per `engine.chat` / `engine.stream` with a child per stage (the model call as a GenAI
 * `chat <model>` span, retrieval as `retrieval <namespace>`), one span per `engine.search` and
 * `engine.ingest`. Attributes follow the OpenTelemetry GenAI semantic conventions where they
 * exist (`gen_ai.*`: model, provider, token usage, finish reasons, conversation id) plus
 * cortexis' own (`cortexis.*`: route, k, sources, scores, confidence, guard, grounding).
 * Message and document text stay out of spans unless `recordContent` is set.
 *
 * Needs `@opentelemetry/api` (an optional peer dependency) and an OpenTelemetry SDK set up by
 * the application; the core entry never loads it. The turn span's parent is the context
 * current when `chat` / `stream` is called (a host's HTTP request span).
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { createChatEngine } from 'cortexis';
 * import { openTelemetryTracer } from 'cortexis/opentelemetry';
 *
 * // after the OpenTelemetry SDK is started (NodeSDK, or a TracerProvider you register)
 * const engine = createChatEngine({
 *   tracer: openTelemetryTracer(trace.getTracer('my-app')),
 * });
 * ```
 * @module
 */
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type AttributeValue,
  type Attributes,
  type Span,
  type Tracer as ApiTracer,
} from '@opentelemetry/api';
import type {
  TraceAttributes,
  TraceSpan,
  TraceSpanKind,
  TraceSpanOptions,
  Tracer,
} from '../../ports/tracer.js';

/** The attribute values an OpenTelemetry span accepts. */
export type OpenTelemetryAttributeValue =
  | string
  | number
  | boolean
  | (string | null | undefined)[]
  | (number | null | undefined)[]
  | (boolean | null | undefined)[];

/** The part of an OpenTelemetry `Span` used here (`@opentelemetry/api`'s `Span` fits). */
export interface OpenTelemetrySpanLike {
  /** Sets attributes. */
  setAttributes(attributes: Record<string, OpenTelemetryAttributeValue | undefined>): unknown;
  /** Sets the status (`code` 2 is error). */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Adds an `exception` event. */
  recordException(exception: Error | string): void;
  /** Ends the span. */
  end(): void;
}

/** The part of an OpenTelemetry `Tracer` used here (`@opentelemetry/api`'s `Tracer` fits). */
export interface OpenTelemetryTracerLike {
  /** Starts a span, child of the span in `context` when one is given. */
  startSpan(
    name: string,
    options?: {
      kind?: number;
      attributes?: Record<string, OpenTelemetryAttributeValue | undefined>;
    },
    context?: unknown,
  ): OpenTelemetrySpanLike;
}

/** Options of {@link openTelemetryTracer}. */
export interface OpenTelemetryTracerOptions {
  /**
   * Put message and document text on spans: the prompt, the answer and the retrieval query
   * (`gen_ai.system_instructions`, `gen_ai.input.messages`, `gen_ai.output.messages`,
   * `gen_ai.retrieval.query.text`) and the retrieved chunk ids with their scores
   * (`gen_ai.retrieval.documents`). Default false: user text never reaches the telemetry
   * backend.
   */
  readonly recordContent?: boolean | undefined;
  /** Attributes added to every span (a deployment, a tenant). */
  readonly attributes?: TraceAttributes | undefined;
}

/** The instrumentation scope name of the default tracer. */
export const INSTRUMENTATION_SCOPE = 'cortexis';

const KINDS: Readonly<Record<TraceSpanKind, SpanKind>> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
};

/**
 * The engine's tracer over OpenTelemetry. Without `tracer`, uses the global tracer provider's
 * tracer named `cortexis` (a no-op until an SDK registers a provider).
 *
 * @example
 * ```ts
 * const engine = createChatEngine({ tracer: openTelemetryTracer() });
 * ```
 */
export function openTelemetryTracer(
  tracer?: OpenTelemetryTracerLike,
  options: OpenTelemetryTracerOptions = {},
): Tracer {
  const otel = (tracer ?? trace.getTracer(INSTRUMENTATION_SCOPE)) as ApiTracer;
  const common = options.attributes ? toAttributes(options.attributes) : undefined;
  // The OpenTelemetry span behind each span handed out (spans of other tracers have none).
  const spans = new WeakMap<TraceSpan, Span>();

  const startSpan = (name: string, spanOptions: TraceSpanOptions = {}): TraceSpan => {
    const parent = spanOptions.parent && spans.get(spanOptions.parent);
    // Without a parent of ours, the current context's span (if any) is the parent.
    const parentContext = parent ? trace.setSpan(context.active(), parent) : context.active();
    const attributes = spanOptions.attributes ? toAttributes(spanOptions.attributes) : undefined;
    const span = otel.startSpan(
      name,
      {
        kind: KINDS[spanOptions.kind ?? 'internal'],
        attributes: { ...common, ...attributes },
      },
      parentContext,
    );
    let ended = false;
    const handle: TraceSpan = {
      setAttributes(values) {
        if (!ended) span.setAttributes(toAttributes(values));
      },
      recordError(error) {
        if (ended) return;
        span.recordException(toException(error));
        span.setAttribute('error.type', errorType(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
      },
      end() {
        if (ended) return;
        ended = true;
        span.end();
      },
    };
    spans.set(handle, span);
    return handle;
  };

  return {
    name: 'opentelemetry',
    specificationVersion: 'v1',
    recordContent: options.recordContent ?? false,
    startSpan,
    withSpan(span, fn) {
      const otelSpan = spans.get(span);
      return otelSpan ? context.with(trace.setSpan(context.active(), otelSpan), fn) : fn();
    },
  };
}

/** Our attributes as OpenTelemetry's (the same values; arrays are copied, `undefined` dropped). */
function toAttributes(values: TraceAttributes): Attributes {
  const attributes: Attributes = {};
  for (const key in values) {
    const value = values[key];
    if (value === undefined) continue;
    attributes[key] = (Array.isArray(value) ? [...value] : value) as AttributeValue;
  }
  return attributes;
}

function toException(error: unknown): Error | string {
  return error instanceof Error ? error : String(error);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `error.type`: a cortexis error's stable code (`provider_error`, `timeout`, …), else the
 * error's class name, else `_OTHER`.
 */
function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && code.length > 0) return code;
    if (typeof name === 'string' && name.length > 0 && name !== 'Error') return name;
  }
  return '_OTHER';
}
