/**
 * Incremental indexing for the CLI (Node only): each document's content hash is kept in the
 * index manifest, so a later run re-ingests only added or changed documents and removes
 * the documents whose files are gone.
 */
import { createHash } from 'node:crypto';
import type { IngestDocument } from '../types.js';
import { counted } from './render.js';

/** Document id → content hash, as kept in the index manifest. */
export type DocumentHashes = Readonly<Record<string, string>>;

/** What a run changes in the index, by document id. */
export interface IndexChanges {
  /** Documents not in the index yet. */
  readonly added: string[];
  /** Documents whose content, title, uri or metadata changed. */
  readonly changed: string[];
  /** Documents in the index whose file is gone. */
  readonly removed: string[];
  /** How many documents are unchanged (not re-ingested). */
  readonly unchanged: number;
}

/** A SHA-256 hex hash of everything of a document that ends up in the index. */
export function documentHash(doc: IngestDocument): string {
  return createHash('sha256')
    .update(
      JSON.stringify([doc.id, doc.title ?? null, doc.uri ?? null, doc.text, doc.metadata ?? null]),
    )
    .digest('hex');
}

/** The hashes of `docs`, by id (a later document with the same id wins, as in `ingest`). */
export function hashDocuments(docs: readonly IngestDocument[]): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const doc of docs) hashes[doc.id] = documentHash(doc);
  return hashes;
}

/**
 * Compares the indexed hashes (`previous`; undefined when there is no index) with the
 * current ones. Ids are sorted, so the result does not depend on file-system order.
 */
export function diffDocuments(
  previous: DocumentHashes | undefined,
  current: DocumentHashes,
): IndexChanges {
  const before = previous ?? {};
  const added: string[] = [];
  const changed: string[] = [];
  let unchanged = 0;
  for (const id of Object.keys(current).sort()) {
    if (!Object.hasOwn(before, id)) added.push(id);
    else if (before[id] !== current[id]) changed.push(id);
    else unchanged += 1;
  }
  const removed = Object.keys(before)
    .filter((id) => !Object.hasOwn(current, id))
    .sort();
  return { added, changed, removed, unchanged };
}

/** One line for stderr, e.g. `Index: 1 added, 2 changed, 0 removed, 40 unchanged documents`. */
export function describeChanges(changes: IndexChanges): string {
  return `Index: ${changes.added.length} added, ${changes.changed.length} changed, ${changes.removed.length} removed, ${counted(changes.unchanged, 'unchanged document')}`;
}
