import { describe, expect, it } from 'vitest';

import { matchesFilter, validateFilter } from '../../src/query/filter.js';
import { ValidationError } from '../../src/errors/index.js';

const record = { lang: 'en', year: 2021, draft: false, owner: null, title: 'Handbook' };

describe('matchesFilter', () => {
  it('treats a bare value as equality, all fields must hold', () => {
    expect(matchesFilter(record, { lang: 'en' })).toBe(true);
    expect(matchesFilter(record, { lang: 'en', year: 2020 })).toBe(false);
    expect(matchesFilter(record, { owner: null })).toBe(true);
    expect(matchesFilter(record, { missing: 'x' })).toBe(false);
    expect(matchesFilter(record, {})).toBe(true);
    expect(matchesFilter(record, undefined)).toBe(true);
  });

  it('supports $eq, $ne, $in and $nin; a missing field counts as not equal', () => {
    expect(matchesFilter(record, { draft: { $eq: false } })).toBe(true);
    expect(matchesFilter(record, { lang: { $ne: 'en' } })).toBe(false);
    expect(matchesFilter(record, { missing: { $ne: 'x' } })).toBe(true);
    expect(matchesFilter(record, { lang: { $in: ['de', 'en'] } })).toBe(true);
    expect(matchesFilter(record, { missing: { $in: ['x'] } })).toBe(false);
    expect(matchesFilter(record, { lang: { $nin: ['de', 'en'] } })).toBe(false);
    expect(matchesFilter(record, { missing: { $nin: ['x'] } })).toBe(true);
  });

  it('compares ranges within one type only and combines operators', () => {
    expect(matchesFilter(record, { year: { $gte: 2021, $lt: 2022 } })).toBe(true);
    expect(matchesFilter(record, { year: { $gt: 2021 } })).toBe(false);
    expect(matchesFilter(record, { year: { $lte: 2020 } })).toBe(false);
    expect(matchesFilter(record, { title: { $gt: 'A', $lt: 'I' } })).toBe(true);
    expect(matchesFilter(record, { year: { $gt: '1000' } })).toBe(false);
    expect(matchesFilter(record, { missing: { $lt: 5 } })).toBe(false);
  });
});

describe('validateFilter', () => {
  it('accepts well-formed filters', () => {
    expect(() =>
      validateFilter({ a: 1, b: { $in: [1, 'x', null] }, c: { $gte: 'm' } }),
    ).not.toThrow();
  });

  it.each([
    [{ year: { $regex: 'x' } }, 'filter.year'],
    [{ lang: { $in: 'en' } }, 'filter.lang.$in'],
    [{ lang: { $nin: [{}] } }, 'filter.lang.$nin.0'],
    [{ year: { $gt: true } }, 'filter.year.$gt'],
    [{ year: { $eq: Number.NaN } }, 'filter.year.$eq'],
    [{ tags: ['a'] }, 'filter.tags'],
  ])('rejects %j naming %s', (filter, path) => {
    try {
      validateFilter(filter);
      expect.unreachable();
    } catch (error) {
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as ValidationError).issues[0]?.path).toBe(path);
      expect((error as Error).message).toContain(path);
    }
  });

  it('rejects a filter that is not an object', () => {
    expect(() => validateFilter('lang = en')).toThrow(ValidationError);
    expect(() => validateFilter(null)).toThrow(ValidationError);
  });
});
