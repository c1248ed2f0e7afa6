import { describe, expectTypeOf, it } from 'vitest';
import {
  createChatEngine,
  type ChatResponse,
  type ChatStreamPart,
  type Confidence,
  type EngineConfig,
  type GuardEvent,
  type ResolvedConfig,
  type RetrievalEvent,
} from '../src/index.js';

// Compile-time checks of the public surface: `npm run typecheck` fails when they break.
describe('public types', () => {
  it('types each event listener by its name', () => {
    const engine = createChatEngine();
    engine.on('guard', (event) => expectTypeOf(event).toEqualTypeOf<GuardEvent>());
    engine.on('retrieval', (event) => expectTypeOf(event).toEqualTypeOf<RetrievalEvent>());
    // @ts-expect-error: no such event
    engine.on('no-such-event', () => undefined);
  });

  it('infers config input as optional and resolved config as complete', () => {
    // Every key is optional: {} and partial sections are valid configs.
    expectTypeOf<{}>().toMatchTypeOf<EngineConfig>();
    expectTypeOf<{ retrieval: { topK: number } }>().toMatchTypeOf<EngineConfig>();
    // @ts-expect-error: topK is a number
    const invalid: EngineConfig = { retrieval: { topK: 'three' } };
    void invalid;
    expectTypeOf<ResolvedConfig['retrieval']['topK']>().toEqualTypeOf<number>();
    expectTypeOf<ResolvedConfig['retrieval']['weights']>().toEqualTypeOf<{
      vector: number;
      keyword: number;
    }>();
  });

  it('narrows stream parts by type', () => {
    expectTypeOf<
      Extract<ChatStreamPart, { type: 'done' }>['response']
    >().toEqualTypeOf<ChatResponse>();
    expectTypeOf<
      Extract<ChatStreamPart, { type: 'confidence' }>['confidence']
    >().toEqualTypeOf<Confidence>();
    expectTypeOf<Confidence['level']>().toEqualTypeOf<'low' | 'medium' | 'high'>();
  });
});
