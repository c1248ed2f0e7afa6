/**
 * Document loaders (issue 16): how fast `loadDocuments` walks and parses a folder, per file type,
 * and what the three chunkers make of the loaded documents. Run: `npm run bench:loaders`
 * (`node --import tsx bench/loaders.ts [--files N]`). Writes a temporary folder of N files per
 * type (markdown with front matter, HTML with page chrome, text, JSONL of 10 records) plus
 * copies of the PDF and DOCX fixtures, and prints a markdown table.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createGptTokenizer } from '../src/adapters/tokenizer/gpt-tokenizer.js';
import { fixedSizeChunker, markdownSectionChunker, tokenChunker } from '../src/index.js';
import { loadDocuments } from '../src/loaders/index.js';

const { values } = parseArgs({ options: { files: { type: 'string', default: '200' } } });
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

  console.log(`| files (${count} per type) | documents | skipped | ms | files/s |`);
  console.log('| --- | ---: | ---: | ---: | ---: |');
  let all = [] as Awaited<ReturnType<typeof loadDocuments>>['documents'];
  for (const type of ['md', 'html', 'txt', 'jsonl', 'pdf', 'docx']) {
    const started = performance.now();
    const result = await loadDocuments([join(root, type)]);
    const ms = performance.now() - started;
    all = all.concat(result.documents);
    console.log(
      `| ${type} | ${result.documents.length} | ${result.skipped.length} | ${ms.toFixed(0)} | ${((count * 1000) / ms).toFixed(0)} |`,
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
