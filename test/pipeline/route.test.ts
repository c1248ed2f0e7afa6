import { describe, expect, it } from 'vitest';

import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { ValidationError } from '../../src/errors/index.js';
import type { EmbeddingProvider } from '../../src/ports/embedding-provider.js';
import { createRouter } from '../../src/pipeline/route.js';
import { decideIntent, ruleScores } from '../../src/pipeline/route/intent.js';
import { applySearchDepth, DEFAULT_STRATEGIES } from '../../src/pipeline/route/strategies.js';

describe('ruleScores and decideIntent', () => {
  it('reads cue phrases', () => {
    expect(ruleScores('How is billing related to accounts?').relational).toBeGreaterThan(0.5);
    expect(ruleScores('Summarize the onboarding guide').synthesis).toBeGreaterThan(0.5);
    expect(ruleScores('What is the refund policy?').retrieval).toBeGreaterThan(0);
  });

  it('calls a query with relational and synthesis cues hybrid, and a cue-less one retrieval', () => {
    const both = ruleScores('Compare how the modules are connected and summarize the dependencies');
    expect(decideIntent(both, null, 0.6).intent).toBe('hybrid');
    const none = { retrieval: 0, relational: 0, synthesis: 0 };
    expect(decideIntent(none, null, 0.6)).toEqual({ intent: 'retrieval', confidence: 1 });
  });
});

describe('applySearchDepth', () => {
  it('turns the graph and rerankers off when shallow and on when deep', () => {
    const shallow = applySearchDepth(DEFAULT_STRATEGIES.relational, 'shallow');
    expect(shallow).toMatchObject({ graph: null, graphRerank: false, rerank: false, k: 3 });
    expect(shallow.maxK).toBeGreaterThanOrEqual(shallow.k);
    const deep = applySearchDepth(DEFAULT_STRATEGIES.retrieval, 'deep');
    expect(deep.graph?.depth).toBe(2);
    expect(deep).toMatchObject({ graphRerank: true, rerank: true, candidates: 100 });
    expect(applySearchDepth(DEFAULT_STRATEGIES.synthesis, 'medium')).toBe(
      DEFAULT_STRATEGIES.synthesis,
    );
  });
});

describe('createRouter', () => {
  it('routes by rules and examples, and reports intent, confidence and strategy', async () => {
    const router = createRouter({ embedder: createHashingEmbedder() });
    const lookup = await router.route('What is the refund policy for digital goods?');
    expect(lookup.intent).toBe('retrieval');
    expect(lookup.strategy).toEqual(DEFAULT_STRATEGIES.retrieval);
    const relational = await router.route('Which documents cite the security guide?');
    expect(relational.intent).toBe('relational');
    // Relational questions get graph rerank; expansion through the graph comes with 'deep'.
    expect(relational.strategy.graphRerank).toBe(true);
    expect(relational.strategy.graph).toBeNull();
    const deep = await router.route('Which documents cite the security guide?', {
      searchDepth: 'deep',
    });
    expect(deep.strategy.graph).toMatchObject({ depth: 2 });
    const synthesis = await router.route('Give me an overview of all pricing plans');
    expect(synthesis.intent).toBe('synthesis');
    expect(synthesis.confidence).toBeGreaterThan(0);
    expect(synthesis.confidence).toBeLessThanOrEqual(1);
    const shallow = await router.route('Which documents cite the guide?', {
      searchDepth: 'shallow',
    });
    expect(shallow).toMatchObject({ searchDepth: 'shallow', strategy: { graph: null } });
  });

  it('embeds the examples once and falls back to the rules when the embedder fails', async () => {
    let calls = 0;
    const failing: EmbeddingProvider = {
      name: 'failing',
      specificationVersion: 'v1',
      id: 'failing',
      dimensions: 2,
      async embed() {
        calls++;
        throw new Error('down');
      },
    };
    const router = createRouter({ embedder: failing });
    expect((await router.route('Summarize the report')).intent).toBe('synthesis');
    expect(calls).toBe(1);

    const counting = createHashingEmbedder();
    let batches = 0;
    const wrapped: EmbeddingProvider = {
      ...counting,
      embed: (texts, options) => {
        batches++;
        return counting.embed(texts, options);
      },
    };
    const cached = createRouter({ embedder: wrapped });
    await cached.route('one question');
    await cached.route('another question');
    expect(batches).toBe(3); // examples once + each query
  });

  it('rejects bad input and bad strategies with ValidationError', async () => {
    const router = createRouter({ embedder: createHashingEmbedder(), examples: [] });
    await expect(router.route('  ')).rejects.toBeInstanceOf(ValidationError);
    await expect(router.route('x', { searchDepth: 'extreme' as never })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(() =>
      createRouter({ embedder: createHashingEmbedder(), strategies: { retrieval: { k: 0 } } }),
    ).toThrow(ValidationError);
    const custom = createRouter({
      embedder: createHashingEmbedder(),
      strategies: { retrieval: { k: 4, maxK: 6 } },
    });
    expect(custom.strategies.retrieval).toMatchObject({ k: 4, maxK: 6, graph: null });
  });
});
