import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../src/text/sentences.js';

const texts = (text: string) => splitSentences(text).map((span) => span.text);

describe('splitSentences: technical text', () => {
  it('never ends a sentence inside inline code', () => {
    expect(texts('Append `...` to the name. Use `a. B! c? D` here. Done.')).toEqual([
      'Append `...` to the name.',
      'Use `a. B! c? D` here.',
      'Done.',
    ]);
    // A backtick run without a partner is literal; a code span stops at a blank line.
    expect(texts('One ` tick. Two.\n\nThree `x.\n\nY` four.')).toEqual([
      'One ` tick.',
      'Two.',
      'Three `x.',
      'Y` four.',
    ]);
  });

  it('keeps identifiers, versions, URLs and abbreviations like f.ex. inside the sentence', () => {
    expect(
      texts(
        'Strip it (f.ex. iconv.decode(buf, enc)). Call .requiredOption() first. ' +
          'The range ^0.2.3 means >=0.2.3 <0.3.0-0. See https://example.com/a.b?c=1 now.',
      ),
    ).toEqual([
      'Strip it (f.ex. iconv.decode(buf, enc)).',
      'Call .requiredOption() first.',
      'The range ^0.2.3 means >=0.2.3 <0.3.0-0.',
      'See https://example.com/a.b?c=1 now.',
    ]);
  });

  it('reads an ellipsis by what follows it', () => {
    expect(texts('Make it variadic by appending ... to the name. Wait... Then go.')).toEqual([
      'Make it variadic by appending ... to the name.',
      'Wait...',
      'Then go.',
    ]);
    expect(texts('It trails off… and goes on. Ends… Next.')).toEqual([
      'It trails off… and goes on.',
      'Ends…',
      'Next.',
    ]);
  });

  it('reads a period standing alone before a lower-case word as a literal', () => {
    // "a `.` can be used" once a loader has removed the backticks.
    expect(texts('Over an array of strings, a . can be used for the item. Then . Next.')).toEqual([
      'Over an array of strings, a . can be used for the item.',
      'Then .',
      'Next.',
    ]);
  });

  it('keeps a numbered list marker with its item', () => {
    expect(texts('Steps:\n1. Install it.\n2. Run it.\n10) Stop.')).toEqual([
      'Steps:',
      '1. Install it.',
      '2. Run it.',
      '10) Stop.',
    ]);
  });

  it('makes each row of a table without edge pipes its own unit, and a lone pipe no table', () => {
    expect(texts('Code | When | Retry\n429 | rate limited | yes\n500 | server | yes')).toEqual([
      'Code | When | Retry',
      '429 | rate limited | yes',
      '500 | server | yes',
    ]);
    expect(texts('Use a | b in a shell\nto pipe output.')).toEqual([
      'Use a | b in a shell\nto pipe output.',
    ]);
  });

  it('slices back to every sentence and survives hostile input', () => {
    const hostile = [
      'a\u0000b. C\ud800d. E',
      '`'.repeat(100_000),
      '.'.repeat(100_000),
      '…'.repeat(50_000),
      '| '.repeat(50_000),
      '1. '.repeat(30_000),
      '[source: S1] '.repeat(10_000) + '.',
      `x. [source: ${'a'.repeat(50_000)}`,
    ];
    for (const text of hostile) {
      const spans = splitSentences(text);
      for (const span of spans) expect(text.slice(span.start, span.end)).toBe(span.text);
    }
    expect(texts('a\u0000b. C\ud800d. E')).toEqual(['a\u0000b.', 'C\ud800d.', 'E']);
    expect(splitSentences('.'.repeat(100_000))).toHaveLength(1);
  });
});

describe('splitSentences: the characters a boundary starts at', () => {
  it('stops at each of them among any others', () => {
    const filler = 'Ab 9 ÿ ā “q” — \u00a0 é ü 日 x';
    expect(texts(`${filler}. ${filler}! ${filler}? ${filler}… Then`)).toEqual([
      `${filler}.`,
      `${filler}!`,
      `${filler}?`,
      `${filler}…`,
      'Then',
    ]);
    expect(texts(`${filler}。${filler}！${filler}？${filler}`)).toEqual([
      `${filler}。`,
      `${filler}！`,
      `${filler}？`,
      filler,
    ]);
    expect(texts(`${filler} \`a. B\` c\n\n${filler}`)).toEqual([`${filler} \`a. B\` c`, filler]);
  });

  it('splits nowhere else: any other character between two sentences stays inside one', () => {
    const boundaryStarts = new Set(['`', '\n', '.', '!', '?', '…', '。', '！', '？']);
    for (let code = 0; code < 0x10000; code++) {
      const char = String.fromCharCode(code);
      if (boundaryStarts.has(char)) continue;
      const spans = splitSentences(`One ${char} word. Two`);
      expect(spans.map((span) => span.text)).toEqual([`One ${char} word.`, 'Two']);
    }
  });
});
