import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseFlatFrontMatter } from '../../src/loaders/front-matter-flat.js';
import { splitFrontMatter } from 'cortexis/loaders';

/** What `splitFrontMatter` would get from `yaml` for the same text, or the error it throws. */
function viaYaml(text: string): { data?: unknown; error?: true } {
  try {
    return { data: parseYaml(text, { uniqueKeys: false }) ?? {} };
  } catch {
    return { error: true };
  }
}

const KEYS = [
  'title',
  'tags',
  'a',
  'A_b',
  'x-y',
  '_',
  'null',
  'True',
  '12',
  'k y',
  '__proto__',
  '#c',
  ' k',
  'k ',
];
const VALUES = [
  '',
  ' ',
  'value',
  'value 12',
  ' two  spaces ',
  '~',
  'null',
  'Null',
  'NULL',
  'nul',
  'true',
  'TRUE',
  'tRue',
  'False',
  'yes',
  'no',
  'on',
  '0',
  '-0',
  '+7',
  '007',
  '12',
  '-12',
  '123456789012345',
  '1234567890123456789012',
  '1.5',
  '1e3',
  '.5',
  '.inf',
  '.nan',
  '0x1F',
  '0o17',
  '2024-01-01',
  'a: b',
  'a #b',
  'a#b',
  "it's",
  '"quoted"',
  "'single'",
  'foo [bar]',
  'foo {bar}',
  '[1, 2]',
  '{a: 1}',
  '&anchor x',
  '*alias',
  '!tag x',
  '| block',
  '> folded',
  '- item',
  '? q',
  '@at',
  '`tick',
  '%pct',
  'tab\there',
  'nbsp\u00a0',
  'caf\u00e9',
  'emoji \u{1F600}',
  'ctl\u0001',
  'nel\u0085x',
  'ls\u2028x',
  'bom\ufeffx',
  'back\\slash',
  'Infinity',
  'NaN',
  'a,b',
  'a - b',
  'trailing:',
  'x!y',
  'x&y',
  'x*y',
  'x|y',
  'x>y',
  'x%y',
  'x@y',
];

describe('front matter of key: value lines read without the YAML parser', () => {
  it('gives what yaml gives for every line it accepts, and declines the rest', () => {
    let accepted = 0;
    let declined = 0;
    for (const key of KEYS) {
      for (const value of VALUES) {
        for (const separator of [': ', ':', ':   ']) {
          const text = `${key}${separator}${value}`;
          const flat = parseFlatFrontMatter(text);
          if (flat === undefined) {
            declined++;
            continue;
          }
          accepted++;
          const expected = viaYaml(text);
          expect(expected.error, text).toBeUndefined();
          expect(flat, JSON.stringify(text)).toEqual(expected.data);
        }
      }
    }
    // Both paths are exercised: plain words and integers are read here, the rest by yaml.
    expect(accepted).toBeGreaterThan(300);
    expect(declined).toBeGreaterThan(1_000);
  });

  it('reads many lines, empty lines and repeated keys as yaml does', () => {
    const text = ['title: Guide', '', 'order: 3', 'draft: false', 'title: Second', 'empty:'].join(
      '\n',
    );
    expect(parseFlatFrontMatter(text)).toEqual(viaYaml(text).data);
    expect(parseFlatFrontMatter(text)).toEqual({
      title: 'Second',
      order: 3,
      draft: false,
      empty: null,
    });
    const many = Array.from({ length: 900 }, (_, index) => `key${index}: value ${index}`).join(
      '\n',
    );
    expect(parseFlatFrontMatter(many)).toEqual(viaYaml(many).data);
  });

  it('declines nesting, lists, comments, continuation lines and CRLF', () => {
    for (const text of [
      'a:\n  b: 1',
      'a:\n- 1',
      '# comment\na: 1',
      'a: 1 # note',
      'a: one\n  two',
      'a: 1\r\nb: 2',
      '   ',
      'a: 1\n ',
      '--- \na: 1',
    ]) {
      expect(parseFlatFrontMatter(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('splitFrontMatter gives the same data and body either way', () => {
    const source = '---\ntitle: Refunds\nweight: 2\ntags: billing\n---\n\n# Refunds\n';
    expect(splitFrontMatter(source)).toEqual({
      data: { title: 'Refunds', weight: 2, tags: 'billing' },
      body: '\n# Refunds\n',
    });
    // A value yaml must read (a list) still goes to yaml.
    expect(splitFrontMatter('---\ntags: [a, b]\n---\nx').data).toEqual({ tags: ['a', 'b'] });
  });
});
