import { describe, expect, it } from 'vitest';
import {
  describeChanges,
  diffDocuments,
  documentHash,
  hashDocuments,
} from '../../src/cli/incremental.js';

describe('incremental indexing', () => {
  const doc = { id: 'a.md', text: 'Alpha', title: 'A', uri: '/x/a.md' };

  it('hashes everything of a document that reaches the index', () => {
    const base = documentHash(doc);
    expect(documentHash({ ...doc })).toBe(base);
    expect(documentHash({ ...doc, text: 'Alpha!' })).not.toBe(base);
    expect(documentHash({ ...doc, title: 'B' })).not.toBe(base);
    expect(documentHash({ ...doc, uri: '/y/a.md' })).not.toBe(base);
    expect(documentHash({ ...doc, metadata: { page: 2 } })).not.toBe(base);
  });

  it('finds added, changed and removed documents', () => {
    const before = hashDocuments([doc, { id: 'b.md', text: 'Beta' }, { id: 'c.md', text: 'C' }]);
    const after = hashDocuments([
      { id: 'd.md', text: 'Delta' },
      { id: 'b.md', text: 'Beta, edited' },
      doc,
    ]);
    const changes = diffDocuments(before, after);
    expect(changes).toEqual({
      added: ['d.md'],
      changed: ['b.md'],
      removed: ['c.md'],
      unchanged: 1,
    });
    expect(describeChanges(changes)).toBe(
      'Index: 1 added, 1 changed, 1 removed, 1 unchanged document',
    );
  });

  it('adds everything without a previous index', () => {
    const current = hashDocuments([doc, { id: 'b.md', text: 'Beta' }]);
    expect(diffDocuments(undefined, current)).toEqual({
      added: ['a.md', 'b.md'],
      changed: [],
      removed: [],
      unchanged: 0,
    });
  });

  it('does not treat inherited keys as indexed documents', () => {
    const current = hashDocuments([
      { id: 'constructor', text: 'x' },
      { id: 'toString', text: 'y' },
    ]);
    expect(diffDocuments({}, current).added).toEqual(['constructor', 'toString']);
  });
});
