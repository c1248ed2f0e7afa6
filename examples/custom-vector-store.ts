/**
 * A vector store of your own: a plain `Map` with brute-force cosine search. It implements the
 * `VectorStore` port, passes `testVectorStore` from `cortexis/testing`
 * (test/examples/custom-vector-store.test.ts runs it), and plugs into the engine.
 * Run: node --import tsx examples/custom-vector-store.ts
 */
import {
  AbortError,
  createChatEngine,
  matchesFilter,
  validateFilter,
  ValidationError,
  type CallOptions,
  type DeleteTarget,
  type Metadata,
  type VectorMatch,
  type VectorRecord,
  type VectorStore,
} from 'cortexis';

interface Row {
  readonly vector: Float64Array;
  readonly metadata: Metadata;
}

function checkSignal(options?: CallOptions): void {
  if (options?.signal?.aborted) throw new AbortError();
}

function unitVector(vector: ArrayLike<number>, path: string): Float64Array {
  let norm = 0;
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index]!;
    if (!Number.isFinite(value))
      throw new ValidationError(`${path} has a non-finite value`, [
        { path, message: 'must be finite' },
      ]);
    norm += value * value;
  }
  if (vector.length === 0 || norm === 0) {
    throw new ValidationError(`${path} must be a non-zero vector`, [
      { path, message: 'must be non-zero' },
    ]);
  }
  return Float64Array.from(vector, (value) => value / Math.sqrt(norm));
}

/** A small in-memory vector store: one `Map` of rows per namespace. */
export function createArrayVectorStore(): VectorStore {
  const namespaces = new Map<string, Map<string, Row>>();
  const rowsOf = (namespace: string) => {
    if (typeof namespace !== 'string' || namespace.length === 0) {
      throw new ValidationError('namespace must be a non-empty string', [
        { path: 'namespace', message: 'must not be empty' },
      ]);
    }
    let rows = namespaces.get(namespace);
    if (!rows) namespaces.set(namespace, (rows = new Map()));
    return rows;
  };
  const dimensionsOf = (rows: Map<string, Row>) => rows.values().next().value?.vector.length;

  return {
    name: 'array',
    specificationVersion: 'v1',

    async upsert(namespace, records: readonly VectorRecord[], options) {
      checkSignal(options);
      const rows = rowsOf(namespace);
      let dimensions = dimensionsOf(rows);
      // Validate the whole batch before writing anything.
      const prepared = records.map((record, index) => {
        if (typeof record.id !== 'string' || record.id.length === 0) {
          throw new ValidationError(`records.${index}.id must not be empty`, [
            { path: `records.${index}.id`, message: 'must not be empty' },
          ]);
        }
        const path = `records.${index}.vector`;
        if (dimensions !== undefined && record.vector.length !== dimensions) {
          throw new ValidationError(
            `${path} has ${record.vector.length} dimensions, expected ${dimensions}`,
            [{ path, message: 'wrong dimension' }],
          );
        }
        dimensions = record.vector.length;
        return [
          record.id,
          { vector: unitVector(record.vector, path), metadata: { ...record.metadata } },
        ] as const;
      });
      for (const [id, row] of prepared) rows.set(id, row);
    },

    async query(namespace, vector, options) {
      checkSignal(options);
      if (!Number.isInteger(options.k) || options.k < 1) {
        throw new ValidationError('k must be a positive integer', [
          { path: 'k', message: 'must be a positive integer' },
        ]);
      }
      if (options.filter !== undefined) validateFilter(options.filter);
      const rows = rowsOf(namespace);
      const dimensions = dimensionsOf(rows);
      if (dimensions !== undefined && vector.length !== dimensions) {
        throw new ValidationError(
          `vector has ${vector.length} dimensions, expected ${dimensions}`,
          [{ path: 'vector', message: 'wrong dimension' }],
        );
      }
      const unit = unitVector(vector, 'vector');
      const matches: VectorMatch[] = [];
      for (const [id, row] of rows) {
        if (!matchesFilter(row.metadata, options.filter)) continue;
        let score = 0;
        for (let index = 0; index < unit.length; index++)
          score += unit[index]! * row.vector[index]!;
        matches.push({ id, score: Math.max(-1, Math.min(1, score)), metadata: row.metadata });
      }
      return matches
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, options.k);
    },

    async delete(namespace, target: DeleteTarget, options) {
      checkSignal(options);
      const rows = rowsOf(namespace);
      if ('filter' in target) validateFilter(target.filter);
      const ids =
        'ids' in target
          ? target.ids
          : [...rows]
              .filter(([, row]) => matchesFilter(row.metadata, target.filter))
              .map(([id]) => id);
      let removed = 0;
      for (const id of ids) if (rows.delete(id)) removed++;
      return removed;
    },

    async count(namespace, options) {
      checkSignal(options);
      return rowsOf(namespace).size;
    },
  };
}

// Run directly: use it in an engine.
if (import.meta.url === `file://${process.argv[1]}`) {
  const engine = createChatEngine({ vectorStore: createArrayVectorStore() });
  await engine.ingest([
    { id: 'faq', title: 'FAQ', text: 'Support answers within one business day.' },
  ]);
  const reply = await engine.chat({ message: 'How fast does support answer?', mode: 'query' });
  console.log(reply.text);
}
