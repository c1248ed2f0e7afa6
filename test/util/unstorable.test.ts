import { describe, expect, it } from 'vitest';
import { unstorableReason } from '../../src/validate.js';

describe('unstorableReason', () => {
  it('accepts text every store holds, surrogate pairs and other controls included', () => {
    expect(unstorableReason('plain text, \f a form feed, 😀 an emoji, 𝔸')).toBeUndefined();
    expect(unstorableReason('')).toBeUndefined();
  });

  it('names a NUL and where it is', () => {
    expect(unstorableReason('abc\u0000def')).toBe('must not contain U+0000 (NUL) (at offset 3)');
  });

  it('names a lone high or low surrogate and where it is', () => {
    expect(unstorableReason('ab\uD800c')).toBe(
      'must not contain a lone UTF-16 surrogate (at offset 2)',
    );
    expect(unstorableReason('\uDC00x')).toBe(
      'must not contain a lone UTF-16 surrogate (at offset 0)',
    );
    expect(unstorableReason('ok 😀 then \uD83D')).toBe(
      'must not contain a lone UTF-16 surrogate (at offset 11)',
    );
  });

  it('reports the first problem when both occur', () => {
    expect(unstorableReason('\uDFFF then \u0000')).toMatch(/surrogate \(at offset 0\)/);
    expect(unstorableReason('\u0000 then \uDFFF')).toMatch(/NUL\) \(at offset 0\)/);
  });
});
