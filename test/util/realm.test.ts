import vm from 'node:vm';
import { EdgeRuntime } from 'edge-runtime';
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  createChatEngine,
  createMemoryVectorStore,
  ValidationError,
} from '../../src/index.js';
import { toUnitVector } from '../../src/adapters/shared/validate.js';
import { createLearnedBoost } from '../../src/learning/learned-boost.js';
import {
  isAbortSignalLike,
  isFloat32Array,
  isUint8Array,
  toLocalAbortSignal,
  typedArrayKind,
} from '../../src/util/realm.js';
import { handbook } from '../fixtures/handbook.js';

interface ForeignController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

/** Evaluates `code` in a fresh realm: its values fail `instanceof` against our globals. */
const foreign = <T>(code: string, context: Record<string, unknown> = {}): T =>
  vm.runInNewContext(code, context) as T;

// A bare `node:vm` context has no AbortController (it is a web API, not JavaScript); Vercel's
// edge-runtime is a `node:vm` context with the web APIs, so its signals are another realm's.
const edge = new EdgeRuntime();
const foreignController = (): ForeignController =>
  edge.evaluate<ForeignController>('new AbortController()');

describe('realm-independent checks', () => {
  it('recognise an AbortSignal of another realm, which instanceof does not', () => {
    const signal = foreignController().signal;
    expect(signal instanceof AbortSignal).toBe(false);
    expect(isAbortSignalLike(signal)).toBe(true);
    expect(isAbortSignalLike(new AbortController().signal)).toBe(true);
  });

  it('accept a polyfill signal without reason or throwIfAborted, refuse look-alikes', () => {
    const target = new EventTarget();
    const polyfill = Object.assign(target, { aborted: false });
    expect(isAbortSignalLike(polyfill)).toBe(true);
    for (const value of [
      null,
      undefined,
      'signal',
      {},
      { aborted: 'no', addEventListener() {}, removeEventListener() {} },
      { aborted: false, addEventListener() {} },
      { aborted: false, addEventListener() {}, removeEventListener() {}, throwIfAborted: 1 },
      new EventTarget(),
    ]) {
      expect(isAbortSignalLike(value)).toBe(false);
    }
  });

  it('recognise typed arrays of another realm by their internal type, not their tag', () => {
    const floats = foreign<Float32Array>('new Float32Array([1, 2, 3])');
    const bytes = foreign<Uint8Array>('new Uint8Array([1, 2])');
    expect(floats instanceof Float32Array).toBe(false);
    expect(isFloat32Array(floats)).toBe(true);
    expect(isUint8Array(bytes)).toBe(true);
    expect(isUint8Array(Buffer.from('abc'))).toBe(true);
    expect(typedArrayKind(foreign('new Float64Array(1)'))).toBe('Float64Array');

    const spoofedView = new DataView(new ArrayBuffer(8));
    Object.defineProperty(spoofedView, Symbol.toStringTag, { value: 'Float32Array' });
    for (const value of [
      [1, 2, 3],
      { [Symbol.toStringTag]: 'Float32Array', length: 3 },
      spoofedView,
      new Float64Array(3),
      new ArrayBuffer(4),
    ]) {
      expect(isFloat32Array(value)).toBe(false);
    }
    expect(isUint8Array(new Uint8ClampedArray(2))).toBe(false);
    expect(isUint8Array(new Float32Array(2))).toBe(false);
  });
});

describe('toLocalAbortSignal', () => {
  it('returns a signal of this realm as it is', () => {
    const signal = new AbortController().signal;
    expect(toLocalAbortSignal(signal)).toBe(signal);
  });

  it('follows a foreign signal: aborts with its reason, once per foreign signal', () => {
    const controller = foreignController();
    const added: unknown[] = [];
    const addEventListener = controller.signal.addEventListener.bind(controller.signal);
    Object.defineProperty(controller.signal, 'addEventListener', {
      value: (...args: Parameters<AbortSignal['addEventListener']>) => {
        added.push(args[0]);
        addEventListener(...args);
      },
    });
    const local = toLocalAbortSignal(controller.signal);
    expect(local).toBeInstanceOf(AbortSignal);
    expect(toLocalAbortSignal(controller.signal)).toBe(local);
    expect(added).toEqual(['abort']);
    expect(local.aborted).toBe(false);
    const reason = new Error('stop');
    controller.abort(reason);
    expect(local.aborted).toBe(true);
    expect(local.reason).toBe(reason);
  });

  it('is aborted already when the foreign signal is', () => {
    const signal = edge.evaluate<AbortSignal>('AbortSignal.abort("gone")');
    const local = toLocalAbortSignal(signal);
    expect(local.aborted).toBe(true);
    expect(local.reason).toBe('gone');
  });

  it('gives a genuine signal of this realm, which strict platform APIs (browser fetch) need', () => {
    const controller = foreignController();
    const local = toLocalAbortSignal(controller.signal);
    expect(Object.getPrototypeOf(local)).toBe(AbortSignal.prototype);
    expect(Object.getPrototypeOf(controller.signal)).not.toBe(AbortSignal.prototype);
  });
});

describe('values from another realm reach the engine', () => {
  it('a chat turn and a search take a foreign signal; aborting it cancels the turn', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const controller = foreignController();
    const reply = await engine.chat({
      message: 'What is the refund policy?',
      mode: 'query',
      signal: controller.signal,
    });
    expect(reply.sources.length).toBeGreaterThan(0);
    const hits = await engine.search('refund policy', { signal: controller.signal });
    expect(hits.length).toBeGreaterThan(0);
    await engine.ingest(handbook, { signal: controller.signal });

    controller.abort();
    await expect(
      engine.chat({ message: 'What is the refund policy?', signal: controller.signal }),
    ).rejects.toSatisfy(AbortError.isInstance);
  });

  it('refuses what is no signal with a ValidationError naming the field', async () => {
    const engine = createChatEngine();
    for (const signal of [{}, 'abort', { aborted: false }]) {
      const failure = await engine
        .chat({ message: 'hi', mode: 'query', signal: signal as never })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(ValidationError.isInstance(failure)).toBe(true);
      expect((failure as ValidationError).issues).toEqual([
        { path: 'signal', message: 'expected an AbortSignal' },
      ]);
    }
  });

  it('a streamed turn takes a foreign signal', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const { signal } = foreignController();
    const types: string[] = [];
    for await (const part of engine.stream({ message: 'How long does shipping take?', signal })) {
      types.push(part.type);
    }
    expect(types).toContain('text-delta');
    expect(types.at(-1)).toBe('done');
  });

  it('the memory vector store takes foreign Float32Arrays', async () => {
    const store = createMemoryVectorStore();
    await store.upsert('ns', [
      { id: 'a', vector: foreign<Float32Array>('new Float32Array([1, 0, 0])'), metadata: {} },
      { id: 'b', vector: [0, 1, 0], metadata: {} },
    ]);
    const query = foreign<Float32Array>('new Float32Array([1, 0.1, 0])');
    const [best] = await store.query('ns', query, { k: 1 });
    expect(best?.id).toBe('a');
  });

  it('a memory vector store restores from a foreign Uint8Array snapshot', async () => {
    const store = createMemoryVectorStore();
    await store.upsert('ns', [{ id: 'a', vector: [1, 0, 0], metadata: {} }]);
    const bytes = store.snapshot();
    const copy = foreign<Uint8Array>('new Uint8Array(source)', { source: Array.from(bytes) });
    expect(copy instanceof Uint8Array).toBe(false);
    const restored = createMemoryVectorStore({ snapshot: copy });
    expect(await restored.count('ns')).toBe(1);
  });

  it('the learned boost records a foreign Float32Array query vector', () => {
    const boost = createLearnedBoost();
    boost.record({
      chunkId: 'a',
      queryVector: foreign<Float32Array>('new Float32Array([1, 0, 0])'),
      signal: 1,
    });
    expect(boost.boost('a', new Float32Array([1, 0, 0]))).toBeGreaterThan(1);
  });

  it('the shared vector check of the database adapters takes a foreign Float32Array', () => {
    const unit = toUnitVector(foreign<Float32Array>('new Float32Array([3, 4])'), 2, 'vector');
    expect(Array.from(unit)).toEqual([expect.closeTo(0.6), expect.closeTo(0.8)]);
  });
});
