import { describe, expect, it } from 'vitest';
import { DEFAULT_LOAD_LIMITS, loadDocuments, type LoadOptions } from 'cortexis/loaders';
import { expansionBudget, expansionError } from '../../src/loaders/limits.js';

describe('expansionBudget', () => {
  it('allows the ratio times the file, never less than the floor, never more than maxExpandedBytes', () => {
    const limits = DEFAULT_LOAD_LIMITS;
    // A 4 KB PDF: the floor (1 MiB), not 20 × 4 KB.
    expect(expansionBudget(4096, limits, 'maxPdfExpansionRatio')).toEqual({
      bytes: 1024 * 1024,
      limit: 'maxPdfExpansionRatio',
      value: 20,
    });
    // A 1 MB PDF: 20 MB; a 1 MB DOCX: 100 MB (under 100 MiB).
    expect(expansionBudget(1_000_000, limits, 'maxPdfExpansionRatio').bytes).toBe(20_000_000);
    expect(expansionBudget(1_000_000, limits, 'maxExpansionRatio').bytes).toBe(100_000_000);
    // A 10 MB PDF: maxExpandedBytes is the smaller, and is the limit named.
    const large = expansionBudget(10_000_000, limits, 'maxPdfExpansionRatio');
    expect(large).toMatchObject({ bytes: 100 * 1024 * 1024, limit: 'maxExpandedBytes' });
    expect(expansionError(large, 'streams inflate').message).toBe(
      'streams inflate to more than maxExpandedBytes (104857600 bytes)',
    );
    expect(
      expansionError(expansionBudget(4096, limits, 'maxPdfExpansionRatio'), 'streams inflate')
        .limit,
    ).toBe('maxPdfExpansionRatio');
  });

  it('refuses ratio and floor values that are not positive integers', async () => {
    for (const limits of [
      { maxPdfExpansionRatio: 0 },
      { maxExpansionRatio: -1 },
      { expansionFloorBytes: 1.5 },
    ]) {
      await expect(loadDocuments([], { limits } as LoadOptions)).rejects.toThrow(
        /must be a positive integer/,
      );
    }
  });
});
