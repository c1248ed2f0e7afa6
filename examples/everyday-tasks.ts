/**
 * The everyday tasks of docs/getting-started.md, one function each: load a folder, stream an
 * answer, cancel a turn, rate an answer, erase a user. Offline; the tests run every function.
 * Run: node --import tsx examples/everyday-tasks.ts [folder]
 */
import { AbortError, createChatEngine, type ChatEngine } from 'cortexis';
import { loadDocuments } from 'cortexis/loaders';

/** Add your own documents: read a folder (Markdown, HTML, PDF, DOCX, text, JSON) and ingest it. */
export async function addFolder(engine: ChatEngine, folder: string): Promise<number> {
  const { documents, skipped } = await loadDocuments([folder]);
  for (const file of skipped) console.warn(`skipped ${file.path}: ${file.reason}`);
  const result = await engine.ingest(documents);
  return result.chunks;
}

/** Stream an answer: print the text as it arrives; the sources come before the first text. */
export async function streamAnswer(engine: ChatEngine, sessionId: string, message: string) {
  let text = '';
  for await (const part of engine.stream({ sessionId, message })) {
    if (part.type === 'sources') console.log(part.sources.map((source) => source.title));
    if (part.type === 'text-delta') text += part.text;
  }
  return text;
}

/** Cancel a turn: abort its signal; the question and any partial answer stay in the session. */
export async function askCancellable(
  engine: ChatEngine,
  sessionId: string,
  message: string,
  signal: AbortSignal = AbortSignal.timeout(10_000),
): Promise<string | undefined> {
  try {
    const reply = await engine.chat({ sessionId, message, signal });
    return reply.text;
  } catch (error) {
    if (error instanceof AbortError) return undefined; // cancelled: nothing to show
    throw error;
  }
}

/** Rate an answer: feedback from the session's owner; it tunes later retrieval. */
export async function rateAnswer(engine: ChatEngine, messageId: string, userId: string) {
  return engine.feedback({ messageId, userId, rating: 'good', sourceHelpfulness: { S1: 1 } });
}

/** Erase a user: every session, message, summary, recall record and feedback of theirs. */
export async function eraseUser(engine: ChatEngine, userId: string) {
  return engine.deleteUser({ userId });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const engine = createChatEngine();
  console.log('chunks', await addFolder(engine, process.argv[2] ?? 'docs'));
  const session = await engine.createSession({ userId: 'u1' });
  console.log(await streamAnswer(engine, session.id, 'How do I cancel a turn?'));
  const reply = await engine.chat({
    sessionId: session.id,
    message: 'What is the default chunk size?',
  });
  console.log(reply.text);
  await rateAnswer(engine, reply.messageId, 'u1');
  console.log(await eraseUser(engine, 'u1'));
}
