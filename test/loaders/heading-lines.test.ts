import { describe, expect, it } from 'vitest';
import { parseDocx, parseHtml, parseMarkdown } from 'cortexis/loaders';
import { splitSections } from '../../src/ingest/chunk.js';
import { escapeHeadingLines } from '../../src/ingest/chunk-structure.js';
import { htmlToText } from '../../src/ingest/html.js';
import { docxFile, p, table } from './docx-files.js';

/** The heading paths the chunker reads from a loaded text, one per section. */
function headingPaths(text: string): string[] {
  return splitSections(text).map((section) => section.headingPath.join(' › '));
}

describe('text that is not a heading never reads as one', () => {
  it('escapes a line that opens with one to six `#` and a blank, and nothing else', () => {
    expect(escapeHeadingLines('# | stage\n1 | x')).toBe('\\# | stage\n1 | x');
    expect(escapeHeadingLines('a\n   ## b\n###\n#hashtag\n    # four spaces\n####### seven')).toBe(
      'a\n   \\## b\n\\###\n#hashtag\n    # four spaces\n####### seven',
    );
    expect(escapeHeadingLines('no hash at all')).toBe('no hash at all');
  });

  it('Markdown: a table whose first column is headed `#` stays in its section', () => {
    const source =
      '# Concepts\n\nThe stages:\n\n| # | stage | what it does |\n| - | - | - |\n' +
      '| 1 | validate | checks the request |\n\n## Guard mode\n\n`#` opens a comment.\n\nGuard text.\n';
    const { text, title } = parseMarkdown(source);
    expect(title).toBe('Concepts');
    expect(text).toContain('\\# | stage | what it does\n1 | validate | checks the request');
    expect(text).toContain('\\# opens a comment.');
    expect(headingPaths(text)).toEqual(['Concepts', 'Concepts › Guard mode']);
  });

  it('HTML: a first table cell `#` and a paragraph opening with `# ` are text', () => {
    const { text } = parseHtml(
      '<html><body><h1>Concepts</h1><table><tr><th>#</th><th>stage</th></tr>' +
        '<tr><td>1</td><td>validate</td></tr></table><p># 1 rule</p><p>#hashtag</p>' +
        '<h2>Guard</h2><p>Guard text.</p></body></html>',
    );
    expect(text).toContain('\\# | stage\n1 | validate');
    expect(text).toContain('\\# 1 rule\n\n#hashtag');
    expect(headingPaths(text)).toEqual(['Concepts', 'Concepts › Guard']);
  });

  it('DOCX: a body paragraph opening with `# ` is text, a heading style is a heading', async () => {
    const body = [
      p('Handbook', { style: 'Heading1' }),
      p('# of seats per plan'),
      table([
        ['#', 'plan'],
        ['1', 'basic'],
      ]),
    ].join('');
    const { text } = await parseDocx(docxFile(body));
    expect(text).toContain('\\# of seats per plan');
    expect(headingPaths(text)).toEqual(['Handbook']);
  });
});

describe('an HTML document ingested as is', () => {
  it('keeps its headings and escapes a line of its text that opens with `#`', () => {
    const text = htmlToText(
      '<h1>Plans</h1><p># of seats per plan</p><table><tr><th>#</th><th>plan</th></tr></table>' +
        '<h2>Basic</h2><p>One seat.</p>',
    );
    expect(text).toBe('# Plans\n\n\\# of seats per plan\n\n\\# | plan\n\n## Basic\n\nOne seat.');
    expect(headingPaths(text)).toEqual(['Plans', 'Plans › Basic']);
  });
});
