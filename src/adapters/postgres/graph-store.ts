/** `GraphStore` on Postgres: nodes and edges tables, breadth-first traversal one level per query. */
import { throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { GraphEdge, GraphNode, GraphStore, TraverseOptions } from '../../ports/graph-store.js';
import { breadthFirst, validateEdges, validateIds, validateNodes } from '../sql/graph.js';
import { placeholders, rowToNode, toJson } from '../sql/records.js';
import { requireString, validateTraverseOptions } from '../shared/validate.js';
import { transaction, type PgPool } from './database.js';

/** The last item per key (a multi-row upsert may not touch a row twice). */
function lastPerKey<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [key(item), item])).values()];
}

/** Builds the `GraphStore` on a pool whose schema is migrated; `t` qualifies table names. */
export function createPostgresGraphStore(
  pool: PgPool,
  t: (name: string) => string,
  name = 'postgres',
): GraphStore {
  return {
    name,
    specificationVersion: 'v1',

    async upsertNodes(namespace: string, nodes: readonly GraphNode[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      validateNodes(nodes);
      const unique = lastPerKey(nodes, (node) => node.id);
      if (unique.length === 0) return;
      const values = unique.flatMap((node) => [
        namespace,
        node.id,
        node.type,
        toJson(node.properties),
      ]);
      const tuples = unique.map((_, index) => `(${placeholders('postgres', 4, index * 4 + 1)})`);
      await pool.query(
        `INSERT INTO ${t('nodes')} (namespace, id, type, properties) VALUES ${tuples.join(', ')}
         ON CONFLICT (namespace, id) DO UPDATE SET type = EXCLUDED.type, properties = EXCLUDED.properties`,
        values,
      );
    },

    async upsertEdges(namespace: string, edges: readonly GraphEdge[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      validateEdges(edges);
      const unique = lastPerKey(edges, (edge) => JSON.stringify([edge.from, edge.to, edge.type]));
      if (unique.length === 0) return;
      const values = unique.flatMap((edge) => [
        namespace,
        edge.from,
        edge.to,
        edge.type,
        edge.weight,
      ]);
      const tuples = unique.map((_, index) => `(${placeholders('postgres', 5, index * 5 + 1)})`);
      await pool.query(
        `INSERT INTO ${t('edges')} (namespace, from_id, to_id, type, weight) VALUES ${tuples.join(', ')}
         ON CONFLICT (namespace, from_id, to_id, type) DO UPDATE SET weight = EXCLUDED.weight`,
        values,
      );
    },

    async getNode(namespace: string, id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      requireString(id, 'id');
      const { rows } = await pool.query(
        `SELECT * FROM ${t('nodes')} WHERE namespace = $1 AND id = $2`,
        [namespace, id],
      );
      return rows[0] ? rowToNode(rows[0]) : null;
    },

    async deleteNodes(namespace: string, ids: readonly string[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      validateIds(ids);
      const unique = [...new Set(ids)];
      return transaction(pool, async (client) => {
        await client.query(
          `DELETE FROM ${t('edges')} WHERE namespace = $1 AND (from_id = ANY($2::text[]) OR to_id = ANY($2::text[]))`,
          [namespace, unique],
        );
        const { rowCount } = await client.query(
          `DELETE FROM ${t('nodes')} WHERE namespace = $1 AND id = ANY($2::text[])`,
          [namespace, unique],
        );
        return rowCount ?? 0;
      });
    },

    async neighbors(namespace: string, nodeId: string, options: TraverseOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      requireString(nodeId, 'nodeId');
      validateTraverseOptions(options);
      const start = await pool.query(
        `SELECT 1 FROM ${t('nodes')} WHERE namespace = $1 AND id = $2`,
        [namespace, nodeId],
      );
      if (start.rows.length === 0) return [];
      return breadthFirst(nodeId, options, async (frontier, direction, edgeTypes) => {
        const [near, far] = direction === 'out' ? ['from_id', 'to_id'] : ['to_id', 'from_id'];
        const { rows } = await pool.query(
          `SELECT e.${near} AS frontier, e.type AS edge_type, e.weight AS weight,
                  n.id AS id, n.type AS type, n.properties AS properties
           FROM ${t('edges')} e JOIN ${t('nodes')} n ON n.namespace = e.namespace AND n.id = e.${far}
           WHERE e.namespace = $1 AND e.${near} = ANY($2::text[])
           ${edgeTypes === undefined ? '' : 'AND e.type = ANY($3::text[])'}`,
          edgeTypes === undefined ? [namespace, frontier] : [namespace, frontier, edgeTypes],
        );
        return rows.map((row) => ({
          from: String(row['frontier']),
          neighbor: rowToNode(row),
          type: String(row['edge_type']),
          weight: Number(row['weight']),
        }));
      });
    },
  };
}
