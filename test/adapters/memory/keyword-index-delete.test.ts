import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { matchesFilter } from '../../../src/query/filter.js';
import { createMemoryKeywordIndex } from '../../../src/adapters/memory/keyword-index.js';
import type { Metadata, MetadataFilter } from '../../../src/ports/common.js';

const documentIds = ['a', 'b', 'c', 7, null] as const;

/** Metadata with or without a `documentId` of several types, and a revision. */
const metadata = fc.record(
  {
    documentId: fc.constantFrom(...documentIds),
    revision: fc.constantFrom('r1', 'r2'),
  },
  { requiredKeys: ['revision'] },
);

/** Filters on `documentId` of every form the index looks up, and some it cannot. */
const filter: fc.Arbitrary<MetadataFilter> = fc.oneof(
  fc.constantFrom(...documentIds).map((value) => ({ documentId: value })),
  fc.constantFrom(...documentIds).map((value) => ({ documentId: { $eq: value } })),
  fc
    .subarray([...documentIds])
    .chain((values) =>
      fc.constantFrom<MetadataFilter[]>(
        { documentId: { $in: values } },
        { documentId: { $in: values }, revision: { $ne: 'r2' } },
        { documentId: { $in: values, $ne: 'a' } },
      ),
    ),
  fc.constantFrom<MetadataFilter>({ documentId: { $ne: 'b' } }, { revision: 'r1' }),
);

const operation = fc.oneof(
  fc.record({ add: fc.integer({ min: 0, max: 11 }), metadata }),
  fc.record({ remove: filter }),
);

describe('memory keyword index: delete by a documentId filter', () => {
  it('removes exactly the matching records, and leaves the index as deletes by id do', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 40 }), async (operations) => {
        const byFilter = createMemoryKeywordIndex();
        const byIds = createMemoryKeywordIndex();
        // What the index should hold, in the order records were (last) added.
        const model = new Map<string, Metadata>();
        for (const step of operations) {
          if ('add' in step) {
            const record = {
              id: `r${step.add}`,
              text: `doc ${step.add} text`,
              metadata: step.metadata,
            };
            await byFilter.add('ns', [record]);
            await byIds.add('ns', [record]);
            model.delete(record.id);
            model.set(record.id, step.metadata);
          } else {
            const expected = [...model]
              .filter(([, data]) => matchesFilter(data, step.remove))
              .map(([id]) => id);
            expect(await byFilter.delete('ns', { filter: step.remove })).toBe(expected.length);
            expect(await byIds.delete('ns', { ids: expected })).toBe(expected.length);
            for (const id of expected) model.delete(id);
          }
          expect(await byFilter.count('ns')).toBe(model.size);
        }
        // Same documents, numbers, free list and postings.
        expect(byFilter.snapshot()).toEqual(byIds.snapshot());
      }),
      { numRuns: 200 },
    );
  });

  it('finds the records of a restored snapshot', async () => {
    const index = createMemoryKeywordIndex();
    await index.add('ns', [
      { id: 'x#0', text: 'first', metadata: { documentId: 'x' } },
      { id: 'x#1', text: 'second', metadata: { documentId: 'x' } },
      { id: 'y#0', text: 'third', metadata: { documentId: 'y' } },
    ]);
    const restored = createMemoryKeywordIndex();
    restored.restore(index.snapshot());
    expect(await restored.delete('ns', { filter: { documentId: { $in: ['x'] } } })).toBe(2);
    expect(await restored.count('ns')).toBe(1);
    expect(await restored.search('ns', 'third', { k: 5 })).toHaveLength(1);
  });
});
