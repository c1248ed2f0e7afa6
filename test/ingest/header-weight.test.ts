/**
 * A chunk's header (its document's title and its section) weighs more than its body in the
 * keyword index (BM25F's field weight, written as repetition so every backend weighs it alike),
 * and only there: the embedder sees the header once.
 */
import { describe, expect, it } from 'vitest';
import {
  createChatEngine,
  createHashingEmbedder,
  createMemoryKeywordIndex,
  type EmbeddingProvider,
  type KeywordIndex,
  type KeywordRecord,
} from '../../src/index.js';

describe('header weight in the keyword index', () => {
  it('indexes the header three times for keywords and once for the embedder', async () => {
    const memory = createMemoryKeywordIndex();
    const indexed: KeywordRecord[] = [];
    const keywordIndex: KeywordIndex = {
      ...memory,
      add: async (namespace, records, options) => {
        indexed.push(...records);
        return memory.add(namespace, records, options);
      },
    };
    const hashing = createHashingEmbedder();
    const embedded: string[] = [];
    const embedder: EmbeddingProvider = {
      ...hashing,
      embed: async (texts, options) => {
        embedded.push(...texts);
        return hashing.embed(texts, options);
      },
    };
    const engine = createChatEngine({ keywordIndex, embedder });
    await engine.ingest([{ id: 'a', title: 'Parking permits', text: 'Apply at the city office.' }]);

    expect(indexed.map((record) => record.text)).toEqual([
      'Parking permits\nParking permits\nParking permits\nApply at the city office.',
    ]);
    expect(embedded).toContain('Parking permits\nApply at the city office.');
  });

  it('ranks the page titled with the question above a page that mentions it in passing', async () => {
    const engine = createChatEngine();
    await engine.ingest([
      {
        id: 'passing',
        title: 'City office',
        text: 'The city office also answers questions about parking permits.',
      },
      {
        id: 'titled',
        title: 'Parking permits',
        text:
          'Residents apply online with proof of address and the registration of their car. ' +
          'A decision is sent by mail within ten working days of the application, and the ' +
          'sticker goes on the inside of the windscreen where wardens can read it.',
      },
    ]);

    const hits = await engine.search('parking permits', { k: 2 });
    expect(hits.map((hit) => hit.documentId)).toEqual(['titled', 'passing']);
  });
});
