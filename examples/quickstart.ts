/**
 * The README quickstart: ingest a document, chat in a session, stream a follow-up.
 * Run: node --import tsx examples/quickstart.ts
 */
import { createChatEngine } from 'cortexis';

const engine = createChatEngine(); // in memory, offline: hashing embedder + BM25 + extractive model
await engine.ingest([
  {
    id: 'refunds',
    title: 'Refunds',
    text: 'Refunds are issued within 14 days of the request. Gift cards are never refunded.',
  },
]);

const session = await engine.createSession({ userId: 'u1' });
const reply = await engine.chat({ sessionId: session.id, message: 'How fast are refunds?' });
console.log(reply.text);
console.log(reply.sources[0]?.title, reply.confidence.level);

for await (const part of engine.stream({ sessionId: session.id, message: 'And gift cards?' })) {
  if (part.type === 'text-delta') process.stdout.write(part.text);
}
process.stdout.write('\n');
