/**
 * `buildGraph`, the pure core of the knowledge graph (see `graph.ts` for its nodes and edges):
 * the nodes and edges of one ingested group, from its documents, their links and their chunks'
 * salient terms; it updates only the `GraphState` it is given.
 */
import type { GraphEdge, GraphNode } from '../ports/graph-store.js';
import type { IngestDocument } from '../types.js';
import { chunkNodeId, documentNodeId, EDGE_TYPES, termNodeId } from '../query/graph-model.js';
import { extractLinks, linkKeys, normalizeUri, parseReferenceList } from './graph-links.js';
import {
  forgetLinksFrom,
  type GraphBuildSettings,
  type GraphDocument,
  type GraphState,
  type GraphUpdate,
} from './graph-state.js';
import { salientTerms, termFrequencies } from './graph-terms.js';

/** The engine's defaults (`config.graph`), also used when a caller passes none. */
const DEFAULTS = {
  maxTermsPerChunk: 4,
  maxChunksPerTerm: 50,
  minTermLength: 4,
  termCharacters: 300,
} as const;

function resolve(state: GraphState, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    if (state.documents.has(key)) return key;
    const byUri = state.uris.get(key);
    if (byUri !== undefined) return byUri;
  }
  return undefined;
}

/**
 * Nodes and edges of one ingested group; updates `state` (term statistics, known documents,
 * links waiting for their target). Deterministic for a given state and group.
 */
export function buildGraph(
  group: readonly GraphDocument[],
  state: GraphState,
  settings: GraphBuildSettings = {},
): GraphUpdate {
  const maxTerms = settings.maxTermsPerChunk ?? DEFAULTS.maxTermsPerChunk;
  const maxChunks = settings.maxChunksPerTerm ?? DEFAULTS.maxChunksPerTerm;
  const minLength = settings.minTermLength ?? DEFAULTS.minTermLength;
  const characters = settings.termCharacters ?? DEFAULTS.termCharacters;
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const removedNodeIds: string[] = [];

  // Documents first, so links inside the group resolve.
  const again = new Set(group.map(({ doc }) => doc.id).filter((id) => state.documents.has(id)));
  forgetLinksFrom(state, again);
  for (const { doc } of group) {
    state.documents.add(doc.id);
    if (doc.uri !== undefined) state.uris.set(normalizeUri(doc.uri), doc.id);
  }
  // Links that waited for a document of this group.
  for (const { doc } of group) {
    const keys = [doc.id, ...(doc.uri === undefined ? [] : [doc.uri, normalizeUri(doc.uri)])];
    for (const key of new Set(keys)) {
      const waiting = state.pending.get(key);
      if (waiting === undefined) continue;
      for (const [from, type] of waiting) {
        if (from !== doc.id) {
          edges.push({ from: documentNodeId(from), to: documentNodeId(doc.id), type, weight: 1 });
        }
      }
      state.pending.delete(key);
    }
  }

  const link = (from: IngestDocument, target: string, type: string): void => {
    const keys = linkKeys(target, from.uri);
    const found = resolve(state, keys);
    if (found === from.id) return;
    if (found !== undefined) {
      edges.push({ from: documentNodeId(from.id), to: documentNodeId(found), type, weight: 1 });
      return;
    }
    for (const key of keys) {
      let waiting = state.pending.get(key);
      if (waiting === undefined) {
        waiting = new Map();
        state.pending.set(key, waiting);
      }
      waiting.set(from.id, type);
    }
  };

  // Term statistics of the whole group before choosing salient terms.
  const chunkTerms: ReadonlyMap<string, number>[][] = group.map(({ chunks }) =>
    maxTerms > 0
      ? chunks.map((chunk) =>
          chunk.terms?.characters === characters && chunk.terms.minLength === minLength
            ? chunk.terms.frequencies
            : termFrequencies(chunk.text.slice(0, characters), minLength),
        )
      : [],
  );
  for (const perDocument of chunkTerms) {
    for (const frequencies of perDocument) {
      state.chunkCount++;
      for (const term of frequencies.keys()) {
        state.documentFrequency.set(term, (state.documentFrequency.get(term) ?? 0) + 1);
      }
    }
  }

  const terms = new Set<string>();
  group.forEach(({ doc, chunks }, documentIndex) => {
    const documentNode = documentNodeId(doc.id);
    nodes.push({
      id: documentNode,
      type: 'document',
      properties: {
        documentId: doc.id,
        chunkCount: chunks.length,
        ...(doc.title === undefined ? {} : { title: doc.title }),
        ...(doc.uri === undefined ? {} : { uri: doc.uri }),
      },
    });
    const linked = new Set<string>();
    for (const target of [...extractLinks(doc.text), ...parseReferenceList(doc.metadata?.links)]) {
      if (!linked.has(target)) link(doc, target, EDGE_TYPES.cites);
      linked.add(target);
    }
    for (const source of parseReferenceList(doc.metadata?.derivedFrom)) {
      link(doc, source, EDGE_TYPES.derivedFrom);
    }
    chunks.forEach((chunk, chunkIndex) => {
      const node = chunkNodeId(chunk.id);
      nodes.push({
        id: node,
        type: 'chunk',
        properties: { documentId: doc.id, chunkId: chunk.id, chunkIndex },
      });
      edges.push({ from: node, to: documentNode, type: EDGE_TYPES.derivedFrom, weight: 1 });
      const frequencies = chunkTerms[documentIndex]?.[chunkIndex];
      if (frequencies === undefined) return;
      for (const { term, weight } of salientTerms(frequencies, state, maxTerms)) {
        if ((state.documentFrequency.get(term) ?? 0) > maxChunks) {
          // Already too common within what has been seen: never salient.
          state.blocked.add(term);
          if (state.linked.has(term)) removedNodeIds.push(termNodeId(term));
          state.linked.delete(term);
          continue;
        }
        const count = (state.linked.get(term) ?? 0) + 1;
        state.linked.set(term, count);
        terms.add(term);
        edges.push({ from: node, to: termNodeId(term), type: EDGE_TYPES.relatesTo, weight });
      }
    });
  });
  for (const term of terms) {
    if (!state.blocked.has(term)) {
      nodes.push({ id: termNodeId(term), type: 'term', properties: { term } });
    }
  }
  const removed = new Set(removedNodeIds);
  return {
    nodes,
    edges: edges.filter((edge) => !removed.has(edge.to)),
    removedNodeIds: [...removed],
  };
}
