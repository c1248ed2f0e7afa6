import { describe, expect, it } from 'vitest';
import { createChatEngine, ValidationError } from 'cortexis';

const good = (id: string) => ({ id, text: `Document ${id} says refunds take two weeks.` });

describe('engine.ingest({ partial: true })', () => {
  it('indexes the good documents and reports each rejected one with its reason', async () => {
    const engine = createChatEngine({ limits: { maxDocumentLength: 1000 } });
    const batch = [
      good('a'),
      { id: 'nul', text: 'late \u0000 nul' },
      { id: 'line\nbreak', text: 'x' },
      { id: 'x'.repeat(100_000), text: 'huge id' },
      { id: 'lone', text: 'a \uD800 surrogate' },
      { id: 'meta', text: 'y', metadata: { '': 1 } },
      good('b'),
      good('a'),
      { id: 'long', text: 'z'.repeat(1001) },
      'not a document',
    ];
    const result = await engine.ingest(batch as never, { partial: true });
    expect(result.documents).toBe(2);
    expect(result.rejected.map((item) => [item.index, item.issues[0]!.path])).toEqual([
      [1, '1.text'],
      [2, '2.id'],
      [3, '3.id'],
      [4, '4.text'],
      [5, '5.metadata.'],
      [7, '7.id'],
      [8, '8.text'],
      [9, '9'],
    ]);
    expect(result.rejected[5]!.reason).toBe('7.id: duplicate id (document 0 has it)');
    // A hostile id is reported in a bounded slice, never echoed in full.
    expect(result.rejected[2]!.id).toHaveLength(256);
    expect(result.rejected[2]!.reason.length).toBeLessThan(200);
    const hits = await engine.search('refunds two weeks', { k: 5 });
    expect(new Set(hits.map((hit) => hit.documentId))).toEqual(new Set(['a', 'b']));
  });

  it('indexes nothing and throws nothing when every document is rejected', async () => {
    const engine = createChatEngine();
    const result = await engine.ingest([{ id: '', text: 'x' }], { partial: true });
    expect(result).toMatchObject({ documents: 0, chunks: 0 });
    expect(result.rejected).toHaveLength(1);
    await expect(engine.ingest('nope' as never, { partial: true })).rejects.toThrow(
      ValidationError,
    );
  });

  it('stays all or nothing by default: one bad document refuses the batch', async () => {
    const engine = createChatEngine();
    await expect(engine.ingest([good('a'), { id: 'nul', text: '\u0000' }])).rejects.toThrow(
      /1\.text/,
    );
    expect(await engine.search('refunds two weeks')).toEqual([]);
    const result = await engine.ingest([good('a')]);
    expect(result.rejected).toEqual([]);
    await expect(engine.ingest([good('a')], { partial: 'yes' as never })).rejects.toThrow(
      /partial/,
    );
  });
});
