import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { getDocumentProxy } from 'unpdf';
import { DEFAULT_LOAD_LIMITS, LoadLimitError, parsePdf, type UnpdfLibrary } from 'cortexis/loaders';
import { readPdfText } from '../../src/loaders/pdf-text.js';
import { PdfDocument } from '../../src/loaders/pdf-document.js';
import { PdfSyntaxError, PdfUnsupportedError } from '../../src/loaders/pdf-objects.js';
import { pdfInflating, pdfPages } from '../fixtures/hostile-files.js';
import {
  buildPdf,
  pdfDifferences,
  pdfEncodings,
  pdfIdentityH,
  pdfIncremental,
  pdfLayout,
  pdfObjectStreams,
  pdfType3,
  type BuiltObject,
} from '../fixtures/pdf-files.js';

const fixtures = join(import.meta.dirname, '../fixtures');
const real = [
  join(fixtures, 'loaders/retention.pdf'),
  ...readdirSync(join(fixtures, 'pdf'))
    .filter((name) => name.endsWith('.pdf'))
    .map((name) => join(fixtures, 'pdf', name)),
];

/** Each page's text as pdf.js lays it out (what unpdf's `extractText` joins), and its info. */
async function pdfJs(
  bytes: Uint8Array,
): Promise<{ pages: string[]; info: Record<string, unknown> }> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  try {
    const pages: string[] = [];
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const { items } = await page.getTextContent();
      pages.push(
        items
          .map((item) => {
            const { str, hasEOL } = item as { str?: string; hasEOL?: boolean };
            return (str ?? '') + (hasEOL ? '\n' : '');
          })
          .join(''),
      );
    }
    const { info } = await pdf.getMetadata();
    return { pages, info: info as Record<string, unknown> };
  } finally {
    await pdf.destroy();
  }
}

const normalised = (pages: readonly string[]) =>
  pages.map((page) => page.replace(/\s+/g, ' ').trim());

const generated: [string, () => Buffer | Promise<Buffer>][] = [
  ['a simple font with /Differences and TJ kerning', pdfDifferences],
  ['base encodings from font flags, a standard font without /Widths', pdfEncodings],
  ['a Type0 font, Identity-H, ToUnicode bfchar and bfrange', pdfIdentityH],
  ['every text operator, a form XObject, an inline image', pdfLayout],
  ['object streams and a cross-reference stream (PNG predictor)', pdfObjectStreams],
  ['an incremental update', pdfIncremental],
  ['Type 3 fonts, with ToUnicode and with AGL glyph names', pdfType3],
  ['the hostile generator, 3 pages', () => pdfPages(3)],
  ['the hostile generator, a stream inflating to 1 MB', () => pdfInflating(1_000_000)],
];

describe('the own PDF text reader against pdf.js', () => {
  it.each(real.map((path) => [path.slice(fixtures.length + 1), path]))(
    'reads %s as pdf.js does, with its title, author and subject',
    async (_, path) => {
      const bytes = readFileSync(path);
      const own = readPdfText(bytes, DEFAULT_LOAD_LIMITS);
      const reference = await pdfJs(bytes);
      expect(normalised(own.pages)).toEqual(normalised(reference.pages));
      expect(own.pages.join('').length).toBeGreaterThan(40);
      for (const key of ['Title', 'Author', 'Subject'] as const) {
        expect(own.info[key]).toBe(reference.info[key]);
      }
    },
  );

  it.each(generated)('reads %s as pdf.js does', async (_, make) => {
    const bytes = await make();
    const own = readPdfText(bytes, DEFAULT_LOAD_LIMITS);
    const reference = await pdfJs(bytes);
    expect(normalised(own.pages)).toEqual(normalised(reference.pages));
    expect(own.info.Title).toBe(reference.info.Title);
    expect(own.info.Author).toBe(reference.info.Author);
  });

  it('maps codes through Differences, WinAnsi, ToUnicode ranges and surrogate pairs', () => {
    expect(readPdfText(pdfDifferences(), DEFAULT_LOAD_LIMITS).pages).toEqual([
      'Café finance: “quoted” for 5 €.\nStraße tight gap wide farback\nÇa va → ffling žebra, naïve, – dash ß',
    ]);
    expect(readPdfText(pdfIdentityH(), DEFAULT_LOAD_LIMITS).pages).toEqual([
      'HELLO WORLD\nCAFEé 😀ffORT\nΚαλ',
    ]);
    expect(readPdfText(pdfType3(), DEFAULT_LOAD_LIMITS).pages).toEqual([
      'XYZ ZYX\nXY Z X\nABC BAC\nCAB\nBCA',
    ]);
  });

  it('follows incremental updates and reads text strings in UTF-16BE and PDFDocEncoding', () => {
    const updated = readPdfText(pdfIncremental(), DEFAULT_LOAD_LIMITS);
    expect(updated.pages[1]).toBe('Second page, as updated.');
    expect(updated.info.Title).toBe('After the update');
    const layout = readPdfText(pdfLayout(), DEFAULT_LOAD_LIMITS);
    expect(layout.info).toEqual({
      Title: 'Layout one 📄',
      Author: 'Oﬁce — docs',
      Subject: 'Layout',
    });
  });
});

describe('parsePdf with the own reader', () => {
  const noUnpdf: () => Promise<UnpdfLibrary> = () =>
    Promise.reject(new Error('unpdf must not be needed'));

  it('reads the PDFs it can without unpdf', async () => {
    const pdf = await parsePdf(readFileSync(join(fixtures, 'pdf/columns.pdf')), {
      library: noUnpdf,
    });
    expect(pdf.title).toBe('Two columns');
    expect(pdf.metadata).toEqual({ pages: 1, author: 'docs team', subject: 'Layout test' });
    expect(pdf.pages[0]).toContain('Column paragraph 13');
  });

  it('hands what it declines to unpdf: an encrypted file, a Type 3 font without a box, another filter, a font program’s own encoding', async () => {
    const content = 'BT /F1 12 Tf 72 720 Td (Declined text.) Tj ET';
    const page = (font: string, contents: BuiltObject, trailer = '') =>
      buildPdf({
        objects: [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
          contents,
          font,
          '<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>',
        ],
        trailer,
      });
    const helvetica = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
    const files = [
      page(helvetica, { dict: '', data: content }, '/Encrypt 6 0 R'),
      page(
        '<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << >> /Encoding << >> >>',
        {
          dict: '',
          data: content,
        },
      ),
      page(helvetica, {
        dict: '/Filter /ASCIIHexDecode',
        data: Buffer.from(content).toString('hex'),
      }),
      // An embedded Type 1 program without ToUnicode or /Encoding: its own encoding decides.
      page(
        '<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Garamond /FirstChar 32 /LastChar 126 /Widths [] /FontDescriptor << /Type /FontDescriptor /FontName /ABCDEF+Garamond /Flags 32 /FontFile 6 0 R >> >>',
        { dict: '', data: content },
      ),
    ];
    for (const bytes of files) {
      expect(() => readPdfText(bytes, DEFAULT_LOAD_LIMITS)).toThrow(PdfUnsupportedError);
      let opened = 0;
      const library = (): Promise<UnpdfLibrary> => {
        opened++;
        return Promise.reject(new Error('unpdf asked'));
      };
      await expect(parsePdf(bytes, { library })).rejects.toThrow('unpdf asked');
      expect(opened).toBe(1);
    }
  });

  it('refuses a declined file past maxPdfExpansionRatio before pdf.js opens it', async () => {
    // Encrypted (declined at once), one page of 1,000,000 `(a) Tj ` deflated: 7 MB from 7 KB.
    const bytes = buildPdf({
      objects: [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>`,
        { dict: '', data: `BT /F1 12 Tf ${'(a) Tj '.repeat(1_000_000)}ET`, deflate: true },
        '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
        '<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>',
      ],
      trailer: '/Encrypt 6 0 R',
    });
    expect(() => readPdfText(bytes, DEFAULT_LOAD_LIMITS)).toThrow(PdfUnsupportedError);
    let opened = 0;
    const library = {
      getDocumentProxy: () => {
        opened++;
        return Promise.reject(new Error('pdf.js asked'));
      },
    } as unknown as UnpdfLibrary;
    const refused = await parsePdf(bytes, { library }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LoadLimitError);
    expect((refused as LoadLimitError).limit).toBe('maxPdfExpansionRatio');
    expect(opened).toBe(0);
    // Raised, pdf.js is asked.
    const limits = { ...DEFAULT_LOAD_LIMITS, maxPdfExpansionRatio: 100_000 };
    await expect(parsePdf(bytes, { library, limits })).rejects.toThrow('pdf.js asked');
    expect(opened).toBe(1);
  });
});

/** A one-page PDF around `pages` (the page tree object 2) and `extra` objects from 3. */
function tree(pages: string, extra: readonly BuiltObject[]): Buffer {
  return buildPdf({ objects: ['<< /Type /Catalog /Pages 2 0 R >>', pages, ...extra] });
}

const helloPage = (parent = 2, content = 4) =>
  `<< /Type /Page /Parent ${parent} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents ${content} 0 R >>`;
const hello: BuiltObject = {
  dict: '',
  data: 'BT /F1 12 Tf 72 720 Td (Hello.) Tj ET',
  deflate: true,
};
const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** What reading gives: the pages, or the error's class (never a hang, never past a limit). */
function outcome(bytes: Uint8Array, limits = DEFAULT_LOAD_LIMITS): string[] | string {
  try {
    return readPdfText(bytes, limits).pages;
  } catch (error) {
    if (error instanceof LoadLimitError) return `LoadLimitError ${error.limit}`;
    if (error instanceof PdfUnsupportedError || error instanceof PdfSyntaxError) return error.name;
    throw error;
  }
}

describe('the own PDF text reader on damaged and hostile files', () => {
  it('rebuilds the cross-reference data of a file whose xref points outside it or is gone', () => {
    const good = tree('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', [helloPage(), hello, font]);
    const text = good.toString('latin1');
    const outside = Buffer.from(text.replace(/startxref\n\d+/, 'startxref\n99999999'), 'latin1');
    const noXref = Buffer.from(text.slice(0, text.indexOf('xref\n0 ')), 'latin1');
    const shifted = Buffer.from(
      text.replace(/0000000(\d{3}) 00000 n/g, '0000000001 00000 n'),
      'latin1',
    );
    for (const bytes of [outside, noXref, shifted]) expect(outcome(bytes)).toEqual(['Hello.']);
  });

  it('reads streams whose /Length lies, either way, and a /Length that refers to itself', () => {
    const content = 'BT /F1 12 Tf 72 720 Td (Length lies.) Tj ET';
    for (const length of ['5', '999999', '6 0 R']) {
      const bytes = buildPdf({
        objects: [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          helloPage(),
          `<< /Length ${length} >>\nstream\n${content}\nendstream`,
          font,
          '6 0 R',
        ],
      });
      expect(outcome(bytes)).toEqual(['Length lies.']);
    }
  });

  it('declines a page tree with a cycle or a node of pages reached twice, and one nested past maxNesting; shows a page listed twice twice, as pdf.js does', async () => {
    const cyclic = tree('<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>', [
      helloPage(),
      hello,
      font,
    ]);
    const twice = tree('<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>', [
      helloPage(),
      hello,
      font,
    ]);
    expect(outcome(cyclic)).toBe('PdfUnsupportedError');
    expect(outcome(twice)).toEqual(['Hello.', 'Hello.']);
    expect(outcome(twice)).toEqual((await pdfJs(twice)).pages);
    // Two nodes of pages both listing the same third one (its pages would double each level).
    const diamond = tree('<< /Type /Pages /Kids [6 0 R 6 0 R] /Count 2 >>', [
      helloPage(6),
      hello,
      font,
      '<< /Type /Pages /Parent 2 0 R /Kids [3 0 R] /Count 1 >>',
    ]);
    expect(outcome(diamond)).toBe('PdfUnsupportedError');
    // 40 levels of /Pages, each the only kid of the one above
    const levels: BuiltObject[] = Array.from(
      { length: 40 },
      (_, index) => `<< /Type /Pages /Kids [${index + 5} 0 R] /Count 1 >>`,
    );
    const deep = buildPdf({
      objects: [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [5 0 R] /Count 1 >>',
        hello,
        font,
        ...levels.slice(1),
        helloPage(2, 3).replace('/F1 5 0 R', '/F1 4 0 R'),
      ],
    });
    expect(outcome(deep, { ...DEFAULT_LOAD_LIMITS, maxNesting: 20 })).toBe('PdfUnsupportedError');
    expect(outcome(deep)).toEqual(['Hello.']);
  });

  it('refuses nesting past maxNesting and huge counts with a typed error', () => {
    const nested = `[${'['.repeat(100_000)}${']'.repeat(100_000)}]`;
    const deep = tree('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', [
      helloPage(),
      hello,
      font,
      nested,
    ]);
    // The deep array is never needed: the pages still read.
    expect(outcome(deep)).toEqual(['Hello.']);
    const deepContent = tree('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', [
      helloPage(),
      { dict: '', data: `${'['.repeat(100_000)} TJ`, deflate: true },
      font,
    ]);
    expect(outcome(deepContent)).toBe('PdfSyntaxError');
    // `q` without `Q`: each kept a saved state (2 million took 600 MB from a 4 KB file).
    const saves = (count: number) =>
      tree('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', [
        helloPage(),
        {
          dict: '',
          data: `${'q '.repeat(count)}BT /F1 12 Tf 72 720 Td (Hello.) Tj ET`,
          deflate: true,
        },
        font,
      ]);
    // (4 MB of content from a 4 KB file: past maxPdfExpansionRatio too, which is raised here)
    const unbounded = { ...DEFAULT_LOAD_LIMITS, maxPdfExpansionRatio: 10_000 };
    expect(outcome(saves(2_000_000), unbounded)).toBe('LoadLimitError maxNesting');
    expect(outcome(saves(2_000_000))).toBe('LoadLimitError maxPdfExpansionRatio');
    expect(outcome(saves(DEFAULT_LOAD_LIMITS.maxNesting))).toEqual(['Hello.']);
    const count = tree('<< /Type /Pages /Kids [3 0 R] /Count 1000000000 >>', [
      helloPage(),
      hello,
      font,
    ]);
    expect(outcome(count)).toBe('LoadLimitError maxPages');
    const bfrange = tree('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', [
      helloPage(),
      hello,
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>',
      { dict: '', data: '1 beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange', deflate: true },
    ]);
    expect(outcome(bfrange)).toBe('PdfUnsupportedError');
  });

  it('stops inflating at maxExpandedBytes, and counts pages against maxPages', async () => {
    const limits = { ...DEFAULT_LOAD_LIMITS, maxExpandedBytes: 1024 * 1024 };
    expect(outcome(await pdfInflating(4 * 1024 * 1024), limits)).toBe(
      'LoadLimitError maxExpandedBytes',
    );
    expect(outcome(await pdfInflating(512 * 1024), limits)).toEqual([
      'A page that inflates.' + ' '.repeat(0),
    ]);
    expect(outcome(pdfPages(30), { ...DEFAULT_LOAD_LIMITS, maxPages: 20 })).toBe(
      'LoadLimitError maxPages',
    );
    // A tree whose /Count says 1 but holds 30 leaves is still counted leaf by leaf.
    const kids = Array.from({ length: 30 }, () => '3 0 R').join(' ');
    const lying = tree(`<< /Type /Pages /Kids [${kids}] /Count 1 >>`, [helloPage(), hello, font]);
    expect(outcome(lying, { ...DEFAULT_LOAD_LIMITS, maxPages: 20 })).toBe(
      'LoadLimitError maxPages',
    );
  });

  it('finds every page in one walk of a flat page tree: objects fetched grow with the pages, not their square', () => {
    const fetches = (pages: number): number => {
      const spy = vi.spyOn(PdfDocument.prototype, 'fetch');
      try {
        expect(readPdfText(pdfPages(pages), DEFAULT_LOAD_LIMITS).pages).toHaveLength(pages);
        return spy.mock.calls.length;
      } finally {
        spy.mockRestore();
      }
    };
    const small = fetches(250);
    const large = fetches(1000);
    // 4× the pages: 4× the fetches (a walk from the root for each page would be 16×).
    expect(large / small).toBeGreaterThan(3.5);
    expect(large / small).toBeLessThan(4.5);
    expect(large).toBeLessThan(1000 * 8);
  });

  it('reads what is left of a truncated file, or declines it', () => {
    const whole = pdfPages(6);
    for (const fraction of [0.3, 0.6, 0.9, 0.99]) {
      const cut = whole.subarray(0, Math.floor(whole.length * fraction));
      const result = outcome(cut);
      if (typeof result === 'string') expect(result).toMatch(/PdfUnsupportedError|PdfSyntaxError/);
      else expect(result.every((text) => /^(Page \d of the handbook\.)?$/.test(text))).toBe(true);
    }
    expect(outcome(deflateSync(Buffer.from('%PDF-1.4 not really')))).toMatch(/PdfSyntaxError/);
  });

  it('declines a file whose objects never end instead of reading it again for each', () => {
    const good = tree('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', [helloPage(), hello, font]);
    const text = good.toString('latin1');
    // 20,000 objects that open a string and never close it, and no usable xref: each, parsed
    // while the table is rebuilt, would run to the end of the file (20,000 × 200 KB).
    const open = Array.from({ length: 20_000 }, (_, index) => `${index + 10} 0 obj (\n`).join('');
    const bytes = Buffer.from(
      text.replace('xref\n', `${open}xref\n`).replace(/startxref\n\d+/, 'startxref\n1'),
      'latin1',
    );
    expect(outcome(bytes)).toBe('PdfUnsupportedError');
  });

  it('counts a form drawn again and again against maxExpandedBytes', () => {
    const form = `BT /F1 12 Tf 72 700 Td ${'(Drawn.) Tj '.repeat(1000)} ET`;
    const bytes = buildPdf({
      objects: [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> /Contents 4 0 R >>',
        { dict: '', data: '/X Do\n'.repeat(5_000), deflate: true },
        font,
        { dict: '/Type /XObject /Subtype /Form /BBox [0 0 612 792]', data: form, deflate: true },
      ],
    });
    const limits = { ...DEFAULT_LOAD_LIMITS, maxExpandedBytes: 1024 * 1024 };
    expect(outcome(bytes, limits)).toBe('LoadLimitError maxExpandedBytes');
  });

  it('keeps long ToUnicode ranges as ranges, and counts the entries it makes against maxExpandedBytes', async () => {
    const fonts = 40;
    const names = Array.from({ length: fonts }, (_, index) => `/F${index} ${index + 6} 0 R`).join(
      ' ',
    );
    const content = Array.from({ length: fonts }, (_, index) => `/F${index} 12 Tf (A) Tj`).join(
      ' ',
    );
    const withCMap = (cmap: string) =>
      buildPdf({
        objects: [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << ${names} >> >> /Contents 4 0 R >>`,
          { dict: '', data: `BT 72 700 Td ${content} ET`, deflate: true },
          { dict: '', data: cmap, deflate: true },
          ...Array.from(
            { length: fonts },
            () => '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 5 0 R >>',
          ),
        ],
      });
    // One range of 65,536 codes in each of 40 fonts: a few bytes that never become a table.
    const identity = withCMap('1 beginbfrange <0000> <FFFF> <0000> endbfrange');
    const limits = { ...DEFAULT_LOAD_LIMITS, maxExpandedBytes: 1024 * 1024 };
    expect(outcome(identity, limits)).toEqual(['A'.repeat(fonts)]);
    expect(outcome(identity)).toEqual((await pdfJs(identity)).pages);
    // 2,000 short ranges (256 codes each, stored code by code): 512,000 entries.
    const short = Array.from({ length: 2_000 }, (_, index) => {
      const hex = (value: number) => value.toString(16).padStart(6, '0');
      return `<${hex(index * 256)}> <${hex(index * 256 + 255)}> <0041>`;
    });
    const many = withCMap(`${short.length} beginbfrange ${short.join(' ')} endbfrange`);
    expect(outcome(many, limits)).toBe('LoadLimitError maxExpandedBytes');
  });

  it('skips a form XObject that draws itself', () => {
    const bytes = buildPdf({
      objects: [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> /Contents 4 0 R >>',
        { dict: '', data: 'BT /F1 12 Tf 72 720 Td (Outer.) Tj ET /X Do' },
        font,
        {
          dict: '/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >>',
          data: 'BT /F1 12 Tf 72 700 Td (Inner.) Tj ET /X Do',
        },
      ],
    });
    expect(outcome(bytes)).toEqual(['Outer.Inner.']);
  });
});
