import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as mammoth from 'mammoth';
import {
  DEFAULT_LOAD_LIMITS,
  LoadLimitError,
  parseDocx,
  type MammothLibrary,
} from 'cortexis/loaders';
import { docxParagraphs } from '../fixtures/hostile-files.js';
import { docxFile, p, paragraph, run, table } from './docx-files.js';

const library = mammoth as unknown as MammothLibrary;

describe('the DOCX reader', () => {
  it('reads headings by style name (whatever the id), by outline level and by the style a style is based on', async () => {
    const body = [
      p('Handbook', { style: 'Titel' }),
      p('For staff', { style: 'Untertitel' }),
      p('Scope', { style: 'berschrift1' }),
      p('Body  with   spaces.'),
      p('Details', { style: 'berschrift2' }),
      p('Chapter one', { style: 'Kapitel' }),
      p('Outline two', { outline: 1 }),
      p('Body text outline', { outline: 9 }),
    ].join('');
    const { text, title } = await parseDocx(docxFile(body));
    expect(text).toBe(
      '# Handbook\n\n## For staff\n\n# Scope\n\nBody with spaces.\n\n## Details\n\n' +
        '## Chapter one\n\n## Outline two\n\nBody text outline',
    );
    expect(title).toBe('Handbook');
  });

  it('takes heading style ids when the file has no styles part', async () => {
    const body = p('Top', { style: 'Heading1' }) + p('Sub', { style: 'Heading3' }) + p('Text');
    expect((await parseDocx(docxFile(body, { styles: false }))).text).toBe(
      '# Top\n\n### Sub\n\nText',
    );
  });

  it('writes numbered paragraphs as list items, indented by level, and a list style as a list', async () => {
    const body = [
      p('Before.'),
      p('first', { list: 0 }),
      p('nested', { list: 1 }),
      p('second', { list: 0 }),
      p('by style', { style: 'Aufzhlung' }),
      p('After.'),
    ].join('');
    expect((await parseDocx(docxFile(body))).text).toBe(
      'Before.\n\n- first\n  - nested\n- second\n- by style\n\nAfter.',
    );
  });

  it('writes tables as markdown rows, a pipe in a cell escaped, a nested table inside its cell', async () => {
    const nested = `<w:tbl><w:tr><w:tc>${p('x')}</w:tc><w:tc>${p('y')}</w:tc></w:tr></w:tbl>`;
    const body = [
      p('Prices:'),
      table([
        ['Plan', 'Price'],
        ['Pro', '€10 | month'],
      ]),
      `<w:tbl><w:tr><w:tc>${p('outer')}${p('two paragraphs')}</w:tc><w:tc>${nested}</w:tc></w:tr></w:tbl>`,
      p('After.'),
    ].join('');
    expect((await parseDocx(docxFile(body))).text).toBe(
      'Prices:\n\n| Plan | Price |\n| Pro | €10 \\| month |\n\n| outer two paragraphs | x y |\n\nAfter.',
    );
  });

  it('joins runs, writes tabs and breaks, decodes entities and keeps unicode', async () => {
    const body = [
      paragraph(
        run('a') +
          '<w:r><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t><w:cr/><w:t>d</w:t><w:noBreakHyphen/><w:t>e</w:t></w:r>',
      ),
      p('Zürich — 東京 & <tag> 😀 "quoted"'),
      paragraph('<w:r><w:t>&#x1F600;&#233;&apos;&unknown;</w:t></w:r>'),
      paragraph('<w:r><w:t><![CDATA[<raw & text>]]></w:t></w:r>'),
    ].join('');
    expect((await parseDocx(docxFile(body))).text).toBe(
      'a\tb\nc\nd-e\n\nZürich — 東京 & <tag> 😀 "quoted"\n\n😀é\'&unknown;\n\n<raw & text>',
    );
  });

  it('leaves out deleted text, field codes, old properties, fallbacks, empty paragraphs and tab stops', async () => {
    const body = [
      paragraph(
        '<w:r><w:t>kept</w:t></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del>' +
          '<w:r><w:instrText>PAGE</w:instrText></w:r><w:ins><w:r><w:t> inserted</w:t></w:r></w:ins>',
      ),
      '<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs><w:pPrChange><w:pPr><w:pStyle w:val="berschrift1"/></w:pPr></w:pPrChange></w:pPr><w:r><w:t>plain</w:t></w:r></w:p>',
      p(''),
      paragraph(
        '<mc:AlternateContent><mc:Choice Requires="wps"><w:r><w:t>box</w:t></w:r></mc:Choice>' +
          '<mc:Fallback><w:r><w:t>box again</w:t></w:r></mc:Fallback></mc:AlternateContent>',
      ),
      '<!-- a comment --><?pi ignored?>',
    ].join('');
    expect((await parseDocx(docxFile(body))).text).toBe('kept inserted\n\nplain\n\nbox');
  });

  it('stops at maxParagraphs and maxNesting while it reads', async () => {
    const limits = {
      ...DEFAULT_LOAD_LIMITS,
      maxExpandedBytes: 100 * 1024 * 1024,
      maxPages: 10,
      maxParagraphs: 100,
      maxFrontMatterKeys: 10,
      maxNesting: 50,
      parseTimeoutMs: 1000,
    };
    await expect(parseDocx(docxParagraphs(101), { limits })).rejects.toThrow(LoadLimitError);
    await expect(parseDocx(docxParagraphs(100), { limits })).resolves.toMatchObject({
      title: undefined,
    });
    const deep = paragraph(`${'<w:sdt>'.repeat(60)}${run('deep')}${'</w:sdt>'.repeat(60)}`);
    await expect(parseDocx(docxFile(deep), { limits })).rejects.toThrow(/maxNesting \(50\)/);
  });

  it('reads a document whose XML is broken without hanging: open quotes, stray < and end tags', async () => {
    const body = `${p('one')}<w:p><w:r><w:t>two < three</w:t></w:r></w:p></w:r></w:p>${'<a "'.repeat(2000)}${p('four')}`;
    expect((await parseDocx(docxFile(body))).text).toBe('one\n\ntwo < three\n\nfour');
  });
});

describe('the DOCX reader against mammoth', () => {
  it('gives the same text as mammoth on the fixture', async () => {
    const bytes = readFileSync(join(import.meta.dirname, '../fixtures/loaders/warranty.docx'));
    const own = await parseDocx(bytes);
    const converted = await parseDocx(bytes, { library });
    expect(own).toEqual(converted);
  });

  it('gives the same text as mammoth on headings, paragraphs, lists and unicode', async () => {
    const body = [
      p('Handbook', { style: 'Titel' }),
      p('For staff', { style: 'Untertitel' }),
      p('Scope', { style: 'berschrift1' }),
      p('Body  with   spaces and ünïcödé — 東京 & <tag>.'),
      p('Details', { style: 'berschrift2' }),
      p('first', { list: 0 }),
      p('nested', { list: 1 }),
      p('second', { list: 0 }),
      paragraph(run('one ') + run('run ') + '<w:r><w:t>after</w:t><w:br/><w:t>break</w:t></w:r>'),
      ...Array.from({ length: 50 }, (_, index) => p(`Paragraph ${index} says orders ship.`)),
    ].join('');
    const bytes = docxFile(body);
    expect(await parseDocx(bytes)).toEqual(await parseDocx(bytes, { library }));
    const many = docxParagraphs(500);
    expect(await parseDocx(many)).toEqual(await parseDocx(many, { library }));
  });

  it('differs from mammoth where mammoth loses structure: tables, tabs, outline levels, based-on styles', async () => {
    const body = [
      table([
        ['Plan', 'Price'],
        ['Pro', '10'],
      ]),
      paragraph('<w:r><w:t>a</w:t><w:tab/><w:t>b</w:t></w:r>'),
      p('Outline', { outline: 0 }),
      p('Chapter', { style: 'Kapitel' }),
    ].join('');
    const bytes = docxFile(body);
    expect((await parseDocx(bytes)).text).toBe(
      '| Plan | Price |\n| Pro | 10 |\n\na\tb\n\n# Outline\n\n## Chapter',
    );
    expect((await parseDocx(bytes, { library })).text).toBe(
      'Plan\n\nPrice\n\nPro\n\n10\n\na b\n\nOutline\n\nChapter',
    );
  });
});
