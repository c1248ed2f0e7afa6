/**
 * Identifier lookups on the documentation corpora: for every Markdown heading of the tuning
 * corpora that names a camelCase identifier (`### parseURL(input)`, `#### maxBatchSize`), the
 * identifier spelled as words ("parse url", "max batch size") is searched with
 * `engine.search` (the engine's defaults), and the rank of the heading's section is recorded:
 * found in the top 3 (what the offline model is given first), top 5, and the mean reciprocal
 * rank over the top 10. Generated from the corpora, not written by hand; the held-out corpora
 * are never read.
 *
 *   node --import tsx bench/docs/identifiers.ts            # one line per corpus and the total
 *   node --import tsx bench/docs/identifiers.ts --verbose  # every lookup and its rank
 */
import { join } from 'node:path';
import { createChatEngine } from '../../src/index.js';
import { loadDocuments } from '../../src/loaders/index.js';
import { QUESTION_SETS } from './questions/index.js';

const verbose = process.argv.includes('--verbose');
/** A camelCase or PascalCase identifier with at least two parts. */
const IDENTIFIER = /\b[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g;
const HEADING = /^#{1,6}\s+(.+?)\s*#*\s*$/gm;

/** The identifier as a reader types it: its parts in lower case, a space between. */
function asWords(identifier: string): string | null {
  const parts = identifier.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g) ?? [];
  return parts.length >= 2 ? parts.join(' ').toLowerCase() : null;
}

let total = 0;
let top3 = 0;
let top5 = 0;
let reciprocal = 0;
const corpora = [...new Set(QUESTION_SETS.map((set) => set.corpus))];
for (const corpus of corpora) {
  const { documents } = await loadDocuments([join(import.meta.dirname, 'corpora', corpus)]);
  const engine = createChatEngine();
  await engine.ingest(documents);
  const seen = new Set<string>();
  let count = 0;
  let found3 = 0;
  for (const document of documents) {
    for (const [, raw] of document.text.matchAll(HEADING)) {
      const heading = raw!.replace(/`/g, '').trim();
      const identifier = heading.match(IDENTIFIER)?.[0];
      const query = identifier === undefined ? null : asWords(identifier);
      if (query === null || seen.has(query)) continue;
      seen.add(query);
      const hits = await engine.search(query, { k: 10 });
      const rank = hits.findIndex((hit) => (hit.section ?? '').endsWith(heading)) + 1;
      count++;
      if (rank >= 1 && rank <= 3) found3++;
      if (rank >= 1 && rank <= 5) top5++;
      if (rank >= 1) reciprocal += 1 / rank;
      if (verbose) console.log(`${corpus}\t${query}\t${heading}\t${rank || '-'}`);
    }
  }
  total += count;
  top3 += found3;
  if (count > 0) console.log(`${corpus}: ${found3}/${count} in the top 3`);
}
const share = (n: number) => `${((100 * n) / total).toFixed(0)} % (${n}/${total})`;
console.log(
  `all: top 3 ${share(top3)}, top 5 ${share(top5)}, MRR@10 ${(reciprocal / total).toFixed(3)}`,
);
