// Measures what Postgres keeps on disk of deleted messages, for docs/reliability.md (erasure):
// copies of a stored word in the messages table file and in the WAL after deleteUser, VACUUM
// and VACUUM FULL. Run as a user who can read the data directory:
//   CORTEXIS_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx bench/erasure-postgres.ts
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createPostgresStores } from '../src/adapters/postgres/index.js';
import { createChatEngine } from '../src/engine.js';
import { createMockLLM } from '../src/testing/mock-llm.js';

const url = process.env['CORTEXIS_TEST_POSTGRES_URL']!;
const schema = `cortexis_residue_${Date.now()}`;
const WORD = `residueword${Date.now()}`;
const stores = await createPostgresStores({ connectionString: url, schema });
const q = (sql: string) => stores.pool.query(sql);
const first = async (sql: string): Promise<string> =>
  String(Object.values((await q(sql)).rows[0] as Record<string, unknown>)[0]);
const dataDir = await first('SHOW data_directory');
const fileOf = async (table: string) =>
  join(dataDir, await first(`SELECT pg_relation_filepath('"${schema}".${table}')`));
const count = (path: string) =>
  existsSync(path) ? readFileSync(path).toString('latin1').split(WORD).length - 1 : 0;
const walHits = () => {
  const dir = join(dataDir, 'pg_wal');
  return readdirSync(dir)
    .filter((f) => /^[0-9A-F]{24}$/.test(f))
    .filter((f) => count(join(dir, f)) > 0).length;
};
const report = async (stage: string) => {
  const file = await fileOf('messages');
  console.log(
    `${stage}: messages heap file ${count(file)} copies; WAL segments holding it: ${walHits()}`,
  );
};
const engine = createChatEngine({
  llm: createMockLLM({ responses: () => ({ text: 'Noted.' }) }),
  sessionStore: stores.sessionStore,
  learningSink: stores.learningSink,
});
const session = await engine.createSession({ userId: 'alice' });
for (let i = 0; i < 3; i++)
  await engine.chat({
    sessionId: session.id,
    userId: 'alice',
    message: `My word is ${WORD} (${i})`,
  });
await q('CHECKPOINT');
await report('stored, after CHECKPOINT');
const erased = await engine.deleteUser({ userId: 'alice' });
console.log('deleteUser', JSON.stringify(erased));
await q('CHECKPOINT');
await report('deleted, after CHECKPOINT');
await q(`VACUUM "${schema}".messages`);
await q('CHECKPOINT');
await report('after VACUUM');
await q(`VACUUM FULL "${schema}".messages`);
await q('CHECKPOINT');
await report('after VACUUM FULL');
await q(`DROP SCHEMA "${schema}" CASCADE`);
await stores.close();
