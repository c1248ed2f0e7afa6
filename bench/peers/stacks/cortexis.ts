/**
 * cortexis as a user would set it up offline: `createChatEngine` with its defaults (in-memory
 * stores, BM25 + vector hybrid retrieval, graph, extractive answers, judge, confidence, history
 * persisted in memory), given the shared 256-d hashing embedder.
 */
import type { StackFactory } from './stack.js';

export const createCortexisStack: StackFactory = ({ cortexis, embedder }) => {
  const engine = cortexis.createChatEngine({ embedder });
  let users = 0;
  return {
    async ingest(documents) {
      const result = await engine.ingest(documents);
      return result.chunks;
    },
    async conversation() {
      // One user per conversation: a user's earlier conversations are recalled in later ones.
      const userId = `user-${++users}`;
      const session = await engine.createSession({ userId });
      return async (message) => {
        const reply = await engine.chat({ sessionId: session.id, userId, message });
        return reply.text;
      };
    },
  };
};
