/**
 * Document loaders (issue 16): how fast `loadDocuments` walks and parses a folder, per file type,
 * and what the three chunkers make of the loaded documents. Run: `npm run bench:loaders`
 * (`node --import tsx bench/loaders.ts [--files N]`). Writes a temporary folder of N files per
 * type (markdown with front matter, HTML with page chrome, text, JSONL of 10 records) plus
 * copies of the PDF and DOCX fixtures, and prints a markdown table: each type loaded with the
 * parse worker and on the calling thread (`worker: false`), alternating.
 *
 * Then the hostile files of issue 28, generated (`test/fixtures/hostile-files.ts`): each is
 * loaded in a child process of its own, which reports the time (wall, and CPU of the process:
 * this thread and the parse worker) and its peak memory (maxRSS) above what it held before
 * loading (`--hostile-only` skips the first tables).
 *
 * `--pdf-compare` prints only the CPU time of the own PDF reader against pdf.js (unpdf, page by
 * page) on the PDF fixtures and the 2,000-page hostile file, in one process, alternating.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { createGptTokenizer } from '../src/adapters/tokenizer/gpt-tokenizer.js';
import { fixedSizeChunker, markdownSectionChunker, tokenChunker } from '../src/index.js';
import { DEFAULT_LOAD_LIMITS, loadDocuments } from '../src/loaders/index.js';
import { readPdfText } from '../src/loaders/pdf-text.js';
import {
  docxBomb,
  docxParagraphs,
  frontMatterKeys,
  htmlNested,
  htmlParagraphs,
  pdfDenseOperators,
  pdfInflating,
  pdfPages,
} from '../test/fixtures/hostile-files.js';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '200' },
    'hostile-only': { type: 'boolean', default: false },
    'pdf-compare': { type: 'boolean', default: false },
    // Internal: load one file and print what it cost (run in a child process).
    'load-one': { type: 'string' },
  },
});

if (values['load-one']) {
  // Warm up the parser on a small file of the same kind first, so the figure is the file's.
  const file = values['load-one'];
  const warm = join(mkdtempSync(join(tmpdir(), 'cortexis-bench-warm-')), `warm${extname(file)}`);
  const small: Record<string, () => string | Buffer> = {
    '.docx': () => docxParagraphs(3),
    '.pdf': () => pdfPages(1),
    '.md': () => frontMatterKeys(3),
    '.html': () => htmlParagraphs(3),
  };
  writeFileSync(warm, small[extname(file)]!());
  await loadDocuments([warm]);
  const before = process.resourceUsage().maxRSS;
  const started = performance.now();
  // CPU time of the whole process: this thread and the parse worker's.
  const cpuBefore = process.cpuUsage();
  const result = await loadDocuments([file]);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const peakKiB = process.resourceUsage().maxRSS - before;
  const outcome =
    result.documents.length > 0
      ? `loaded (${result.documents[0]!.text.length} characters)`
      : `skipped: ${result.skipped[0]?.reason ?? 'nothing'}`;
  console.log(JSON.stringify({ ms, cpuMs, peakKiB, outcome }));
  process.exit(0);
}

async function hostileTable(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'cortexis-bench-hostile-'));
  try {
    const cases: [string, string, () => Promise<string | Buffer> | string | Buffer][] = [
      ['HTML, 20,000 <p>', 'many.html', () => htmlParagraphs(20_000)],
      ['HTML, 100,000 nested <div>', 'deep.html', () => htmlNested(100_000)],
      ['DOCX, 10,000 paragraphs', 'long.docx', () => docxParagraphs(10_000)],
      ['DOCX ZIP bomb (inflates to 2 GiB)', 'bomb.docx', () => docxBomb(2 * 1024 ** 3)],
      [
        'DOCX ZIP bomb, headers lie (2 GiB said 1 KB)',
        'liar.docx',
        () => docxBomb(2 * 1024 ** 3, 1000),
      ],
      ['PDF inflating to 200 MB', 'inflates.pdf', () => pdfInflating(200 * 1024 * 1024)],
      ['DOCX ZIP bomb, 8 MiB (1,000× the file)', 'ratio.docx', () => docxBomb(8 * 1024 ** 2)],
      [
        'PDF, 4,000,000 (a) Tj deflated (26.7 MiB)',
        'dense.pdf',
        () => pdfDenseOperators(4_000_000),
      ],
      [
        'PDF, 4,000,000 0 0 Td deflated (26.7 MiB)',
        'dense-td.pdf',
        () => pdfDenseOperators(4_000_000, '0 0 Td '),
      ],
      [
        'PDF, 4,000,000 (a) Tj, padded to 18× its size',
        'dense-padded.pdf',
        () => pdfDenseOperators(4_000_000, '(a) Tj ', { padding: 1_450_000 }),
      ],
      [
        'PDF, 300,000 varied Td + Tj (6× its size)',
        'dense-varied.pdf',
        () => pdfDenseOperators(300_000, '', { vary: true }),
      ],
      ['PDF, 20,000 pages', 'pages.pdf', () => pdfPages(20_000)],
      ['PDF, 2,000 pages', 'pages-2k.pdf', () => pdfPages(2_000)],
      ['Markdown, 40,000 front matter keys', 'keys.md', () => frontMatterKeys(40_000)],
      ['Markdown, 900 front matter keys', 'keys-900.md', () => frontMatterKeys(900)],
    ];
    console.log(
      '\n| hostile file | bytes | outcome | ms | CPU ms | CPU s per MB | peak memory above start |',
    );
    console.log('| --- | ---: | --- | ---: | ---: | ---: | ---: |');
    for (const [label, name, make] of cases) {
      const path = join(folder, name);
      writeFileSync(path, await make());
      const bytes = statSync(path).size;
      const output = execFileSync(
        process.execPath,
        ['--import', 'tsx', import.meta.filename, '--load-one', path],
        { encoding: 'utf8' },
      );
      const { ms, cpuMs, peakKiB, outcome } = JSON.parse(output.trim().split('\n').pop()!) as {
        ms: number;
        cpuMs: number;
        peakKiB: number;
        outcome: string;
      };
      const perMb = cpuMs / 1000 / (bytes / 1e6);
      console.log(
        `| ${label} | ${bytes} | ${outcome.slice(0, 90)} | ${ms.toFixed(0)} | ${cpuMs.toFixed(0)} | ${perMb.toFixed(2)} | ${(peakKiB / 1024).toFixed(0)} MiB (${((peakKiB * 1024) / bytes).toFixed(1)}× the file) |`,
      );
      rmSync(path);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** CPU ms of `run`. */
async function cpuMs(run: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function pdfCompare(): Promise<void> {
  const { getDocumentProxy } = await import('unpdf');
  const dir = join(import.meta.dirname, '../test/fixtures/pdf');
  const files: [string, Uint8Array][] = [
    [
      'retention.pdf',
      readFileSync(join(import.meta.dirname, '../test/fixtures/loaders/retention.pdf')),
    ],
    ...readdirSync(dir)
      .filter((name) => name.endsWith('.pdf'))
      .map((name): [string, Uint8Array] => [name, readFileSync(join(dir, name))]),
    ['hostile: 2,000 pages', pdfPages(2_000)],
  ];
  const pdfJs = async (bytes: Uint8Array): Promise<void> => {
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    for (let number = 1; number <= pdf.numPages; number++) {
      await (await pdf.getPage(number)).getTextContent();
    }
    await pdf.destroy();
  };
  // One read of each way first: the figures are warm.
  for (const [, bytes] of files) {
    readPdfText(bytes, DEFAULT_LOAD_LIMITS);
    await pdfJs(bytes);
  }
  console.log('| PDF | bytes | own reader, CPU ms (3 runs) | pdf.js, CPU ms (3 runs) |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, bytes] of files) {
    const own: string[] = [];
    const reference: string[] = [];
    for (let round = 0; round < 3; round++) {
      own.push((await cpuMs(() => readPdfText(bytes, DEFAULT_LOAD_LIMITS))).toFixed(1));
      reference.push((await cpuMs(() => pdfJs(bytes))).toFixed(0));
    }
    console.log(`| ${name} | ${bytes.length} | ${own.join(' / ')} | ${reference.join(' / ')} |`);
  }
}

if (values['pdf-compare']) {
  await pdfCompare();
  process.exit(0);
}

if (values['hostile-only']) {
  await hostileTable();
  process.exit(0);
}
const count = Number(values.files);
const fixtures = join(import.meta.dirname, '../test/fixtures/loaders');

const paragraph = (index: number) =>
  `Policy ${index} says orders ship within ${index % 7} days and **refunds** take [two weeks](https://example.com). `.repeat(
    6,
  );

const root = mkdtempSync(join(tmpdir(), 'cortexis-bench-loaders-'));
try {
  for (const type of ['md', 'html', 'txt', 'jsonl', 'pdf', 'docx']) mkdirSync(join(root, type));
  for (let index = 0; index < count; index++) {
    writeFileSync(
      join(root, 'md', `${index}.md`),
      `---\ntitle: Policy ${index}\ntags: [a, b]\n---\n\n# Policy ${index}\n\n${paragraph(index)}\n\n## Details\n\n${paragraph(index + 1)}\n`,
    );
    writeFileSync(
      join(root, 'html', `${index}.html`),
      `<html><head><title>P${index}</title><script>x()</script></head><body><nav>Home | Shop</nav><main><h1>Policy ${index}</h1><p>${paragraph(index)}</p></main><footer>© Example</footer></body></html>`,
    );
    writeFileSync(join(root, 'txt', `${index}.txt`), paragraph(index));
    writeFileSync(
      join(root, 'jsonl', `${index}.jsonl`),
      Array.from({ length: 10 }, (_, record) =>
        JSON.stringify({ id: `r${index}-${record}`, text: paragraph(record) }),
      ).join('\n'),
    );
    copyFileSync(join(fixtures, 'retention.pdf'), join(root, 'pdf', `${index}.pdf`));
    copyFileSync(join(fixtures, 'warranty.docx'), join(root, 'docx', `${index}.docx`));
  }

  // Each type is loaded with the parse worker (the default) and on the calling thread
  // (`worker: false`), alternating, three rounds each, after one load of each way to warm up.
  console.log(
    `| files (${count} per type) | documents | skipped | ms, worker | ms, calling thread | worker / thread | files/s, worker |`,
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  let all = [] as Awaited<ReturnType<typeof loadDocuments>>['documents'];
  const rounds = 3;
  for (const type of ['md', 'html', 'txt', 'jsonl', 'pdf', 'docx']) {
    const folder = join(root, type);
    const result = await loadDocuments([folder]);
    await loadDocuments([folder], { worker: false });
    const total = { worker: 0, thread: 0 };
    for (let round = 0; round < rounds; round++) {
      const order =
        round % 2 === 0 ? (['worker', 'thread'] as const) : (['thread', 'worker'] as const);
      for (const way of order) {
        const started = performance.now();
        await loadDocuments([folder], { worker: way === 'worker' });
        total[way] += performance.now() - started;
      }
    }
    const ms = { worker: total.worker / rounds, thread: total.thread / rounds };
    all = all.concat(result.documents);
    console.log(
      `| ${type} | ${result.documents.length} | ${result.skipped.length} | ${ms.worker.toFixed(0)} | ${ms.thread.toFixed(0)} | ${(ms.worker / ms.thread).toFixed(2)} | ${((count * 1000) / ms.worker).toFixed(0)} |`,
    );
  }

  const tokenizer = await createGptTokenizer();
  const context = { tokenizer, chunkSize: 512, chunkOverlap: 64 };
  console.log(`\n| chunker (${all.length} documents) | chunks | mean tokens | ms |`);
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, chunker] of [
    ['tokenChunker()', tokenChunker()],
    ['markdownSectionChunker()', markdownSectionChunker()],
    ['fixedSizeChunker({ size: 128 })', fixedSizeChunker({ size: 128, overlap: 16 })],
  ] as const) {
    const started = performance.now();
    let chunks = 0;
    let tokens = 0;
    for (const document of all) {
      for (const chunk of await chunker(document, context)) {
        chunks++;
        tokens += tokenizer.count(chunk.text);
      }
    }
    const ms = performance.now() - started;
    console.log(`| ${name} | ${chunks} | ${(tokens / chunks).toFixed(0)} | ${ms.toFixed(0)} |`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
await hostileTable();
