import { describe, expect, it } from 'vitest';

import { createMemoryGraphStore } from '../../src/adapters/memory/graph-store.js';
import { createGraphIndexer } from '../../src/ingest/graph.js';
import { buildGraph } from '../../src/ingest/graph-build.js';
import { extractLinks, linkKeys, parseReferenceList } from '../../src/ingest/graph-links.js';
import { createGraphState, type GraphDocument } from '../../src/ingest/graph-state.js';
import { chunkNodeId, documentNodeId, termNodeId } from '../../src/query/graph-model.js';
import type { IngestDocument } from '../../src/types.js';

function groupOf(...docs: IngestDocument[]): GraphDocument[] {
  return docs.map((doc) => ({ doc, chunks: [{ id: `${doc.id}#0`, text: doc.text }] }));
}

const edgesOf = (update: ReturnType<typeof buildGraph>, type: string) =>
  update.edges.filter((edge) => edge.type === type).map((edge) => [edge.from, edge.to]);

describe('extractLinks and references', () => {
  it('finds markdown, reference, wiki links and relative paths', () => {
    const text = [
      'See [the guide](./guide.md#setup "Guide") and [[faq]].',
      '[ref]: https://example.com/a',
      'Also ../other/notes.md for details.',
    ].join('\n');
    expect(extractLinks(text).sort()).toEqual(
      ['../other/notes.md', './guide.md#setup', 'faq', 'https://example.com/a'].sort(),
    );
    expect(extractLinks('no links here')).toEqual([]);
  });

  it('parses metadata lists and resolves relative targets against the uri', () => {
    expect(parseReferenceList('a, b c')).toEqual(['a', 'b', 'c']);
    expect(parseReferenceList('["x y", "z"]')).toEqual(['x y', 'z']);
    expect(parseReferenceList(3)).toEqual([]);
    expect(linkKeys('../b/c.md#top', 'docs/a/index.md')).toContain('docs/b/c.md');
    expect(linkKeys('c.html', 'https://site.dev/x/y.html')).toContain('https://site.dev/x/c.html');
  });
});

describe('buildGraph', () => {
  it('makes document and chunk nodes linked by DERIVED_FROM', () => {
    const update = buildGraph(groupOf({ id: 'a', text: 'alpha text' }), createGraphState());
    expect(update.nodes.map((node) => node.id)).toEqual(
      expect.arrayContaining([documentNodeId('a'), chunkNodeId('a#0')]),
    );
    expect(edgesOf(update, 'DERIVED_FROM')).toContainEqual([
      chunkNodeId('a#0'),
      documentNodeId('a'),
    ]);
  });

  it('links citations by id, uri and relative path, and waits for targets not yet seen', () => {
    const state = createGraphState();
    const first = buildGraph(
      groupOf(
        { id: 'intro', uri: 'docs/intro.md', text: 'Read [setup](./setup.md) and [faq](faq).' },
        { id: 'setup', uri: 'docs/setup.md', text: 'Install it.' },
        { id: 'copy', text: 'A copy.', metadata: { derivedFrom: 'intro', links: 'setup' } },
      ),
      state,
    );
    expect(edgesOf(first, 'CITES')).toEqual(
      expect.arrayContaining([
        [documentNodeId('intro'), documentNodeId('setup')],
        [documentNodeId('copy'), documentNodeId('setup')],
      ]),
    );
    expect(edgesOf(first, 'DERIVED_FROM')).toContainEqual([
      documentNodeId('copy'),
      documentNodeId('intro'),
    ]);
    expect(edgesOf(first, 'CITES')).not.toContainEqual([
      documentNodeId('intro'),
      documentNodeId('faq'),
    ]);
    const later = buildGraph(groupOf({ id: 'faq', text: 'Questions.' }), state);
    expect(edgesOf(later, 'CITES')).toEqual([[documentNodeId('intro'), documentNodeId('faq')]]);
  });

  it('relates chunks through shared salient terms and drops terms that become common', () => {
    const state = createGraphState();
    const update = buildGraph(
      groupOf(
        { id: 'a', text: 'Mitochondria produce energy through respiration.' },
        { id: 'b', text: 'Mitochondrial respiration fails in disease.' },
      ),
      state,
      { maxTermsPerChunk: 6 },
    );
    const relates = edgesOf(update, 'RELATES_TO');
    expect(relates).toContainEqual([chunkNodeId('a#0'), termNodeId('respiration')]);
    expect(relates).toContainEqual([chunkNodeId('b#0'), termNodeId('respiration')]);
    for (const edge of update.edges) expect(edge.weight).toBeGreaterThan(0);
    for (const edge of update.edges) expect(edge.weight).toBeLessThanOrEqual(1);

    const common = createGraphState();
    const docs = Array.from({ length: 5 }, (_, index) => ({
      id: `d${index}`,
      text: `protein number${'x'.repeat(index)} unique${index}word`,
    }));
    const bounded = buildGraph(groupOf(...docs), common, { maxChunksPerTerm: 3 });
    expect(bounded.edges.some((edge) => edge.to === termNodeId('protein'))).toBe(false);
    expect(common.blocked.has('protein')).toBe(true);
  });
});

describe('createGraphIndexer', () => {
  it('writes the graph, replaces a re-ingested document and keeps links into it', async () => {
    const graphStore = createMemoryGraphStore();
    const indexer = createGraphIndexer({ graphStore });
    await indexer.index('kb', [
      {
        doc: { id: 'a', text: 'See [b](b).' },
        chunks: [
          { id: 'a#0', text: 'See b.' },
          { id: 'a#1', text: 'More.' },
        ],
      },
      { doc: { id: 'b', text: 'Target.' }, chunks: [{ id: 'b#0', text: 'Target.' }] },
    ]);
    const cited = await graphStore.neighbors('kb', documentNodeId('a'), {
      depth: 1,
      edgeTypes: ['CITES'],
    });
    expect(cited.map((n) => n.node.id)).toEqual([documentNodeId('b')]);

    // b re-ingested with one chunk; a's citation of b survives.
    await indexer.index('kb', groupOf({ id: 'b', text: 'New target.' }));
    const still = await graphStore.neighbors('kb', documentNodeId('a'), {
      depth: 1,
      edgeTypes: ['CITES'],
    });
    expect(still.map((n) => n.node.id)).toEqual([documentNodeId('b')]);

    // a re-ingested with a single chunk: its old second chunk is gone.
    await indexer.index('kb', groupOf({ id: 'a', text: 'No links now.' }));
    expect(await graphStore.getNode('kb', chunkNodeId('a#1'))).toBeNull();
    const none = await graphStore.neighbors('kb', documentNodeId('a'), {
      depth: 1,
      edgeTypes: ['CITES'],
      direction: 'out',
    });
    expect(none).toEqual([]);

    expect(await indexer.remove('kb', ['a'])).toBe(2);
    expect(await graphStore.getNode('kb', documentNodeId('a'))).toBeNull();
    expect(await indexer.remove('kb', [])).toBe(0);
  });
});

describe('memory graph store edge identity', () => {
  it('keeps edges apart whose ids only differ in where one ends and the next begins', async () => {
    const store = createMemoryGraphStore();
    const nodes = ['a', 'ab', 'b', 'bc', 'c', 'x:1', '1:x'].map((id) => ({
      id,
      type: 't',
      properties: {},
    }));
    await store.upsertNodes('ns', nodes);
    await store.upsertEdges('ns', [
      { from: 'a', to: 'bc', type: 'R', weight: 1 },
      { from: 'ab', to: 'c', type: 'R', weight: 0.5 },
      { from: 'a', to: 'b', type: 'cR', weight: 0.25 },
      { from: 'x:1', to: '1:x', type: 'R', weight: 1 },
      // The same edge again replaces it.
      { from: 'a', to: 'bc', type: 'R', weight: 0.75 },
    ]);
    const around = async (id: string) =>
      (await store.neighbors('ns', id, { depth: 1, direction: 'out' })).map((found) => [
        found.node.id,
        found.edgeType,
        found.weight,
      ]);
    expect(await around('a')).toEqual([
      ['bc', 'R', 0.75],
      ['b', 'cR', 0.25],
    ]);
    expect(await around('ab')).toEqual([['c', 'R', 0.5]]);
    expect(await around('x:1')).toEqual([['1:x', 'R', 1]]);
    await store.deleteNodes('ns', ['bc']);
    expect(await around('a')).toEqual([['b', 'cR', 0.25]]);
    const restored = createMemoryGraphStore();
    restored.restore(store.snapshot());
    expect(
      (await restored.neighbors('ns', 'b', { depth: 1, direction: 'in' })).map(
        (found) => found.node.id,
      ),
    ).toEqual(['a']);
  });
});
