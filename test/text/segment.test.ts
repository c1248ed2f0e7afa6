import { describe, expect, it } from 'vitest';
import { hasNoSpaceScript, segmentText } from '../../src/text/segment.js';

/** The scripts `segmentText` cuts with `Intl.Segmenter`, as the Unicode property test. */
const NO_SPACE_SCRIPT =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;

/** What a word is, written plainly: a run of letters, combining marks and digits. */
function referenceWords(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{M}\p{N}]+/gu) ?? []
  );
}

describe('segmentText words', () => {
  it('are the runs of letters, marks and digits, also in mostly-ASCII text', () => {
    const texts = [
      'TGF-β1 induces α-SMA (P ≤ 0.05) in 12–14 µm cells',
      'Café Müller: naïve coöperation, Straße, ÆSIR, İstanbul',
      'क्षत्रिय mixed with ASCII42 and ٣٤ Arabic-Indic digits',
      'e\u0301tude with a combining accent, x\u0338 and ＡＢＣ１２ full width',
      'Ωmega ΣΟΦΙΑ σοφός — “quoted” ’apostrophes’ … ﬁne',
      'abc\u00addef soft hyphen, zero\u200bwidth, tab\tand\nnew line',
    ];
    for (const text of texts) expect(segmentText(text).words).toEqual(referenceWords(text));
  });

  it('of ASCII text split at every ASCII character that is not a letter or a digit', () => {
    let text = '';
    for (let code = 0; code < 128; code++) text += `Ab${String.fromCharCode(code)}9z`;
    const { words, ascii } = segmentText(text);
    expect(ascii).toBe(true);
    expect(words).toEqual(text.toLowerCase().match(/[\p{L}\p{N}]+/gu));
  });
});

describe('hasNoSpaceScript', () => {
  it('agrees with the Unicode script test on every code point', () => {
    const missed: string[] = [];
    for (let point = 0; point <= 0x10ffff; point++) {
      if (point >= 0xd800 && point <= 0xdfff) continue;
      const character = String.fromCodePoint(point);
      if (hasNoSpaceScript(character) !== NO_SPACE_SCRIPT.test(character)) {
        missed.push(point.toString(16));
      }
    }
    expect(missed).toEqual([]);
  });

  it('finds a script written without spaces after other non-ASCII text', () => {
    expect(hasNoSpaceScript('naïve – ± then 保証')).toBe(true);
    expect(hasNoSpaceScript('naïve – ± ≥ ∼ only')).toBe(false);
    expect(segmentText('Garantie – 保証期間は2年です').spaceless).toBe(true);
  });
});
