/**
 * Snapshots of the memory keyword index: every namespace's ids, metadata, lengths, free
 * document numbers and posting lists as JSON, and the rebuild of the namespaces from it with
 * every structural invariant checked.
 */
import type { Metadata } from '../../ports/common.js';
import { createSpace, indexDocumentId, isAscending, type Space } from './keyword-postings.js';
import { decodeSnapshot, encodeSnapshot, snapshotError } from './snapshot.js';
import { frozenMetadata } from './frozen-metadata.js';

/** Every namespace's postings, ids, metadata and lengths as snapshot bytes. */
export function snapshotSpaces(spaces: ReadonlyMap<string, Space>): Uint8Array {
  const namespaces = [...spaces].map(([name, space]) => ({
    name,
    ids: space.ids,
    metadata: space.metadata,
    lengths: space.lengths,
    free: space.free,
    postings: [...space.postings].map(([term, list]) => [term, list.documents, list.frequencies]),
  }));
  return encodeSnapshot('keywords', { namespaces });
}

/** Rebuilds the namespaces of keyword snapshot bytes (taken with the same tokenizer). */
export function spacesFromSnapshot(bytes: Uint8Array): Map<string, Space> {
  const { json } = decodeSnapshot(bytes, 'keywords');
  return parseKeywordSnapshot(json);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** Rebuilds the namespaces of a keyword snapshot, checking every structural invariant. */
function parseKeywordSnapshot(json: unknown): Map<string, Space> {
  if (!isRecord(json) || !Array.isArray(json['namespaces'])) {
    throw snapshotError('has no namespaces list');
  }
  const spaces = new Map<string, Space>();
  json['namespaces'].forEach((entry: unknown, index) => {
    const fail = (what: string) => snapshotError(`namespace ${index} ${what}`);
    if (!isRecord(entry)) throw fail('is not an object');
    const { name, ids, metadata, lengths, free, postings } = entry;
    if (typeof name !== 'string' || name.length === 0 || spaces.has(name)) {
      throw fail('has a missing or duplicate name');
    }
    if (
      !Array.isArray(ids) ||
      !Array.isArray(metadata) ||
      !Array.isArray(lengths) ||
      !Array.isArray(free) ||
      !Array.isArray(postings) ||
      metadata.length !== ids.length ||
      lengths.length !== ids.length
    ) {
      throw fail('has missing or inconsistent document arrays');
    }
    if (!ids.every((id) => typeof id === 'string') || !metadata.every(isRecord)) {
      throw fail('has invalid ids or metadata');
    }
    if (
      !lengths.every(isCount) ||
      !free.every((number) => isCount(number) && number < ids.length)
    ) {
      throw fail('has invalid lengths or free numbers');
    }
    const space = createSpace();
    const freeSet = new Set(free as number[]);
    ids.forEach((id: string, number) => {
      space.ids.push(id);
      space.metadata.push(frozenMetadata(metadata[number] as Metadata));
      space.lengths.push(lengths[number] as number);
      space.terms.push([]);
      space.added.push(0);
      if (freeSet.has(number)) return;
      if (id.length === 0 || space.numbers.has(id)) throw fail('has an empty or duplicate id');
      space.numbers.set(id, number);
      space.added[number] = space.adds++;
      indexDocumentId(space, number, space.metadata[number]!);
      space.count++;
      space.totalLength += lengths[number] as number;
    });
    space.free.push(...(free as number[]));
    for (const posting of postings as unknown[]) {
      if (!Array.isArray(posting) || posting.length !== 3) throw fail('has a malformed posting');
      const [term, documents, frequencies] = posting as [unknown, unknown, unknown];
      if (
        typeof term !== 'string' ||
        space.postings.has(term) ||
        !Array.isArray(documents) ||
        !Array.isArray(frequencies) ||
        documents.length !== frequencies.length ||
        documents.length === 0
      ) {
        throw fail('has a malformed posting');
      }
      for (let at = 0; at < documents.length; at++) {
        const number: unknown = documents[at];
        if (!isCount(number) || number >= ids.length || freeSet.has(number)) {
          throw fail(`has a posting of '${term}' for an unknown document`);
        }
        if (!isCount(frequencies[at]) || frequencies[at] === 0) {
          throw fail(`has an invalid frequency in the posting of '${term}'`);
        }
        space.terms[number]!.push(term);
      }
      space.postings.set(term, {
        documents: documents as number[],
        frequencies: frequencies as number[],
        ascending: isAscending(documents as number[]),
      });
    }
    spaces.set(name, space);
  });
  return spaces;
}
