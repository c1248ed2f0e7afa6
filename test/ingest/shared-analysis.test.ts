/**
 * Ingestion analyses each chunk once for the engine's own hashing embedder, its default keyword
 * index and its graph; a host's own embedder or keyword index still gets only text.
 */
import { describe, expect, it } from 'vitest';
import {
  createChatEngine,
  createHashingEmbedder,
  createMemoryKeywordIndex,
} from '../../src/index.js';
import { CHUNK_ANALYSES } from '../../src/text/chunk-analysis.js';

const DOCS = [
  { id: 'a', title: 'Parking permits', text: 'Apply at the city office. Permits take ten days.' },
  { id: 'b', title: 'Refunds', text: 'Refunds are issued within 14 days of the request.' },
];

/** A host's own adapter: a copy of `target` whose `method` records the arguments of each call. */
function recording<T extends object>(target: T, method: keyof T & string, calls: unknown[][]): T {
  const original = target[method] as (...args: unknown[]) => unknown;
  return {
    ...target,
    [method]: (...args: unknown[]) => {
      calls.push(args);
      return original.apply(target, args);
    },
  };
}

describe('the shared analysis of chunks at ingest', () => {
  it("gives the engine's hashing embedder each text's analysis", async () => {
    const hashing = createHashingEmbedder();
    const given: unknown[] = [];
    const embed = hashing.embed.bind(hashing);
    // The same object, its `embed` observed: still the engine's own hashing embedder.
    hashing.embed = async (texts, options) => {
      given.push((options as Record<symbol, unknown> | undefined)?.[CHUNK_ANALYSES]);
      return embed(texts, options);
    };
    const engine = createChatEngine({ embedder: hashing });
    await engine.ingest(DOCS);
    expect(given).toHaveLength(1);
    const analyse = given[0] as (index: number) => { text: string } | undefined;
    expect([0, 1].map((index) => analyse(index)?.text)).toEqual([
      'Parking permits\nApply at the city office. Permits take ten days.',
      'Refunds\nRefunds are issued within 14 days of the request.',
    ]);
  });

  it("gives a host's embedder and keyword index text only", async () => {
    const embedCalls: unknown[][] = [];
    const addCalls: unknown[][] = [];
    const engine = createChatEngine({
      embedder: recording(createHashingEmbedder(), 'embed', embedCalls),
      keywordIndex: recording(createMemoryKeywordIndex(), 'add', addCalls),
    });
    await engine.ingest(DOCS);
    expect(embedCalls.length).toBeGreaterThan(0);
    for (const [, options] of embedCalls) {
      expect(Object.getOwnPropertySymbols(options ?? {})).toEqual([]);
    }
    const records = addCalls.flatMap(([, added]) => added as { terms?: unknown }[]);
    expect(records.map((record) => record.terms)).toEqual([undefined, undefined]);
  });

  it('indexes the same keyword terms and vectors as analysing each text', async () => {
    const question = 'How long do parking permits take?';
    const shared = createChatEngine();
    const own = createChatEngine({
      keywordIndex: createMemoryKeywordIndex(),
      embedder: { ...createHashingEmbedder() },
    });
    await shared.ingest(DOCS);
    await own.ingest(DOCS);
    const [a, b] = await Promise.all([shared.search(question), own.search(question)]);
    expect(a.map((hit) => [hit.id, hit.score])).toEqual(b.map((hit) => [hit.id, hit.score]));
  });
});
