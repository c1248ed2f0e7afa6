/**
 * DOCX files built in memory for the DOCX reader's tests: WordprocessingML paragraphs, runs,
 * lists and tables, zipped with `test/fixtures/hostile-files.ts`'s writer.
 */
import { entry, zip } from '../fixtures/hostile-files.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const MC = 'http://schemas.openxmlformats.org/markup-compatibility/2006';

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
const DOCUMENT_RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/></Relationships>';

/** Paragraph styles: ids as a German Word names them, names as Word stores them. */
const STYLES = `<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="${W}">
<w:style w:type="paragraph" w:default="1" w:styleId="Standard"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/><w:basedOn w:val="Standard"/></w:style>
<w:style w:type="paragraph" w:styleId="Untertitel"><w:name w:val="Subtitle"/></w:style>
<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/></w:style>
<w:style w:type="paragraph" w:styleId="Kapitel"><w:name w:val="Chapter"/><w:basedOn w:val="berschrift2"/></w:style>
<w:style w:type="paragraph" w:styleId="Aufzhlung"><w:name w:val="List Bullet"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>
<w:style w:type="character" w:styleId="Fett"><w:name w:val="heading 1 Char"/></w:style>
</w:styles>`;

/** Numbering definitions mammoth needs to see lists (our reader only needs `w:numPr`). */
const NUMBERING = `<?xml version="1.0" encoding="UTF-8"?><w:numbering xmlns:w="${W}">
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
</w:numbering>`;

/** XML-escaped text. */
export function escape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** A run of text (escaped). */
export function run(text: string): string {
  return `<w:r><w:t xml:space="preserve">${escape(text)}</w:t></w:r>`;
}

/** A paragraph of runs (raw XML) with optional properties. */
export function paragraph(
  runs: string,
  options: { style?: string; list?: number; outline?: number } = {},
): string {
  const properties = [
    options.style === undefined ? '' : `<w:pStyle w:val="${options.style}"/>`,
    options.list === undefined
      ? ''
      : `<w:numPr><w:ilvl w:val="${options.list}"/><w:numId w:val="1"/></w:numPr>`,
    options.outline === undefined ? '' : `<w:outlineLvl w:val="${options.outline}"/>`,
  ].join('');
  return `<w:p>${properties === '' ? '' : `<w:pPr>${properties}</w:pPr>`}${runs}</w:p>`;
}

/** A paragraph of one run of text. */
export function p(text: string, options: Parameters<typeof paragraph>[1] = {}): string {
  return paragraph(run(text), options);
}

/** A table of rows of cells, each cell one paragraph. */
export function table(rows: readonly (readonly string[])[]): string {
  const cells = (row: readonly string[]) => row.map((cell) => `<w:tc>${p(cell)}</w:tc>`).join('');
  return `<w:tbl><w:tblPr/>${rows.map((row) => `<w:tr>${cells(row)}</w:tr>`).join('')}</w:tbl>`;
}

/** A DOCX file whose body is `body` (WordprocessingML), with styles and numbering parts. */
export function docxFile(body: string, options: { styles?: boolean } = {}): Buffer {
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}" xmlns:mc="${MC}"><w:body>${body}<w:sectPr/></w:body></w:document>`;
  return zip([
    entry('[Content_Types].xml', CONTENT_TYPES),
    entry('_rels/.rels', RELS),
    entry('word/_rels/document.xml.rels', DOCUMENT_RELS),
    entry('word/document.xml', document),
    ...(options.styles === false ? [] : [entry('word/styles.xml', STYLES)]),
    entry('word/numbering.xml', NUMBERING),
  ]);
}
