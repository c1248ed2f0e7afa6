import { describe, expect, it } from 'vitest';
import { createSqliteStores } from '../../../src/adapters/sqlite/index.js';
import { rowToSource, SOURCE_COLUMNS, sourceValues } from '../../../src/adapters/sql/records.js';
import { createChatEngine } from '../../../src/index.js';
import { sectionOf, snippet, snippetText, toSources } from '../../../src/pipeline/turn/sources.js';
import type { RetrievedChunk } from '../../../src/pipeline/retrieve.js';

const GUIDE = `# Widget

Widget draws boxes.

## Options

### Padding

The padding option sets the space inside a box. Default: 4 pixels.

\`\`\`js
widget({ padding: 8 })
\`\`\`

## Colours

Boxes are grey unless the colour option names another colour.
`;

function chunk(text: string, metadata: RetrievedChunk['metadata']): RetrievedChunk {
  return {
    chunkId: 'c#0',
    documentId: 'c',
    text,
    title: 'Widget',
    uri: null,
    score: 0.5,
    vectorScore: null,
    keywordScore: null,
    fusedScore: 0.5,
    type: 'hybrid',
    graphBoost: 1,
    learnedBoost: 1,
    graphContext: null,
    metadata,
  } as RetrievedChunk;
}

describe('sources carry their section and a readable snippet', () => {
  it("takes the heading path from the chunk's section metadata; anything else is null", () => {
    expect(sectionOf({ section: 'Widget › Options › Padding' })).toBe('Widget › Options › Padding');
    for (const bad of [{}, { section: '' }, { section: '  ' }, { section: 3 }, { section: null }]) {
      expect(sectionOf(bad)).toBeNull();
    }
  });

  it('drops leading headings and code fences from the snippet, keeps the text', () => {
    const [source] = toSources([
      chunk(
        '### Padding\n\nThe padding option sets the space.\n\n```js\nwidget({ padding: 8 })\n```',
        {
          section: 'Widget › Options › Padding',
        },
      ),
    ]);
    expect(source!.section).toBe('Widget › Options › Padding');
    expect(toSources([chunk('Body.', { section: '' })])[0]).not.toHaveProperty('section');
    expect(source!.snippet).toBe('The padding option sets the space. widget({ padding: 8 })');
    // a chunk that is only a heading keeps it
    expect(snippetText('## Colours')).toBe('## Colours');
    // a heading later in the text is text
    expect(snippetText('Intro.\n\n## Next')).toBe('Intro.\n\n## Next');
  });

  it('handles hostile chunk text: NUL, lone surrogates, a huge run of headings', () => {
    expect(snippetText('# \u0000\ud800\nBody \udc00')).toBe('Body \udc00');
    const headings = '# h\n'.repeat(200_000);
    const started = performance.now();
    // nothing but headings within reach: the text itself, which the snippet then cuts
    const text = snippet(snippetText(`${headings}Body`));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(text).toMatch(/^# h # h .*…$/);
    expect(text.length).toBeLessThanOrEqual(241);
  });

  it('an answer lists each source with the heading path of its section, S1..Sn in order', async () => {
    const engine = createChatEngine();
    await engine.ingest([{ id: 'widget.md', title: 'Widget', text: GUIDE }]);
    const reply = await engine.chat({
      message: 'What does the padding option set?',
      mode: 'query',
    });
    expect(reply.sources.map((source) => source.id)).toEqual(
      reply.sources.map((_, index) => `S${index + 1}`),
    );
    const padding = reply.sources.find((source) => source.snippet.includes('padding option'));
    expect(padding?.section).toBe('Widget › Options › Padding');
    expect(padding?.snippet.startsWith('###')).toBe(false);
  });

  it('keeps the section through the SQL session store (derived from the stored metadata)', async () => {
    const [source] = toSources([chunk('Body.', { section: 'Widget › Colours' })]);
    const values = sourceValues('m1', 0, source!);
    const row = Object.fromEntries(SOURCE_COLUMNS.map((name, index) => [name, values[index]]));
    expect(rowToSource(row).section).toBe('Widget › Colours');
    expect(rowToSource({ ...row, metadata: JSON.stringify({ section: 7 }) })).not.toHaveProperty(
      'section',
    );
    expect(rowToSource({ ...row, metadata: null })).not.toHaveProperty('section');

    const stores = await createSqliteStores({ path: ':memory:' });
    try {
      const engine = createChatEngine({ sessionStore: stores.sessionStore });
      await engine.ingest([{ id: 'widget.md', title: 'Widget', text: GUIDE }]);
      const session = await engine.createSession({ userId: 'u1' });
      const reply = await engine.chat({ sessionId: session.id, message: 'What colour are boxes?' });
      const stored = await stores.sessionStore.getMessage(reply.messageId);
      expect(stored!.sources.map((item) => item.section)).toEqual(
        reply.sources.map((item) => item.section),
      );
      expect(reply.sources.some((item) => item.section === 'Widget › Colours')).toBe(true);
    } finally {
      stores.close();
    }
  });
});
