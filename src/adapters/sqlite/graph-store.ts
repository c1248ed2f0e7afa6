/** `GraphStore` on SQLite: nodes and edges tables, breadth-first traversal one level per query. */
import { throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { GraphEdge, GraphNode, GraphStore, TraverseOptions } from '../../ports/graph-store.js';
import { breadthFirst, validateEdges, validateIds, validateNodes } from '../sql/graph.js';
import { rowToNode, toJson, type Row } from '../sql/records.js';
import { requireString, validateTraverseOptions } from '../shared/validate.js';
import type { SqliteDatabase } from './database.js';

/** Builds the `GraphStore` of an open, migrated database. */
export function createSqliteGraphStore(database: SqliteDatabase, name = 'sqlite'): GraphStore {
  const statement = {
    upsertNode: database.prepare(
      `INSERT INTO nodes (namespace, id, type, properties) VALUES (?, ?, ?, ?)
       ON CONFLICT (namespace, id) DO UPDATE SET type = excluded.type, properties = excluded.properties`,
    ),
    upsertEdge: database.prepare(
      `INSERT INTO edges (namespace, from_id, to_id, type, weight) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (namespace, from_id, to_id, type) DO UPDATE SET weight = excluded.weight`,
    ),
    getNode: database.prepare('SELECT * FROM nodes WHERE namespace = ? AND id = ?'),
    deleteEdges: database.prepare(
      'DELETE FROM edges WHERE namespace = ? AND (from_id = ? OR to_id = ?)',
    ),
    deleteNode: database.prepare('DELETE FROM nodes WHERE namespace = ? AND id = ?'),
  };
  const level = (direction: 'out' | 'in', typed: boolean) => {
    const [near, far] = direction === 'out' ? ['from_id', 'to_id'] : ['to_id', 'from_id'];
    return database.prepare(
      `SELECT e.${near} AS frontier, e.type AS edge_type, e.weight AS weight,
              n.id AS id, n.type AS type, n.properties AS properties
       FROM edges e JOIN nodes n ON n.namespace = e.namespace AND n.id = e.${far}
       WHERE e.namespace = ? AND e.${near} IN (SELECT value FROM json_each(?))
       ${typed ? 'AND e.type IN (SELECT value FROM json_each(?))' : ''}`,
    );
  };
  const levels = {
    out: level('out', false),
    in: level('in', false),
    outTyped: level('out', true),
    inTyped: level('in', true),
  };

  const upsertNodes = database.transaction((namespace: string, nodes: readonly GraphNode[]) => {
    for (const node of nodes) {
      statement.upsertNode.run(namespace, node.id, node.type, toJson(node.properties));
    }
  });
  const upsertEdges = database.transaction((namespace: string, edges: readonly GraphEdge[]) => {
    for (const edge of edges) {
      statement.upsertEdge.run(namespace, edge.from, edge.to, edge.type, edge.weight);
    }
  });
  const deleteNodes = database.transaction((namespace: string, ids: readonly string[]) => {
    let removed = 0;
    for (const id of new Set(ids)) {
      statement.deleteEdges.run(namespace, id, id);
      removed += statement.deleteNode.run(namespace, id).changes;
    }
    return removed;
  });

  return {
    name,
    specificationVersion: 'v1',

    async upsertNodes(namespace: string, nodes: readonly GraphNode[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      validateNodes(nodes);
      upsertNodes.immediate(namespace, nodes);
    },

    async upsertEdges(namespace: string, edges: readonly GraphEdge[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      validateEdges(edges);
      upsertEdges.immediate(namespace, edges);
    },

    async getNode(namespace: string, id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      requireString(id, 'id');
      const row = statement.getNode.get(namespace, id) as Row | undefined;
      return row ? rowToNode(row) : null;
    },

    async deleteNodes(namespace: string, ids: readonly string[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      validateIds(ids);
      return deleteNodes.immediate(namespace, ids);
    },

    async neighbors(namespace: string, nodeId: string, options: TraverseOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      requireString(nodeId, 'nodeId');
      validateTraverseOptions(options);
      if (!statement.getNode.get(namespace, nodeId)) return [];
      return breadthFirst(nodeId, options, async (frontier, direction, edgeTypes) => {
        const rows = (
          edgeTypes === undefined
            ? levels[direction].all(namespace, toJson(frontier))
            : levels[direction === 'out' ? 'outTyped' : 'inTyped'].all(
                namespace,
                toJson(frontier),
                toJson(edgeTypes),
              )
        ) as Row[];
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
