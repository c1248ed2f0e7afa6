import { afterAll } from 'vitest';
import { createPostgresStores, type PostgresStores } from '../../../src/adapters/postgres/index.js';
import { uniqueName } from '../../../src/testing/shared.js';
import { testGraphStore, testLearningSink, testSessionStore } from '../../../src/testing/index.js';

const url = process.env['CORTEXIS_TEST_POSTGRES_URL'];
const reason = url ? undefined : 'CORTEXIS_TEST_POSTGRES_URL is not set';

// One throwaway schema for the whole file; tests stay apart through fresh user ids and
// namespaces. Dropped at the end.
const schema = uniqueName('cortexis_test');
let opened: Promise<PostgresStores> | undefined;
const stores = (): Promise<PostgresStores> =>
  (opened ??= createPostgresStores({ connectionString: url!, schema }));

afterAll(async () => {
  if (!opened) return;
  const { pool, close } = await opened;
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await close();
});

if (url) {
  testSessionStore({
    title: 'postgres session store',
    create: async () => (await stores()).sessionStore,
  });
  testLearningSink({
    title: 'postgres learning sink',
    create: async () => (await stores()).learningSink,
  });
  testGraphStore({
    title: 'postgres graph store',
    create: async () => (await stores()).graphStore,
  });
} else {
  const { it } = await import('vitest');
  it.skip(`postgres conformance [skipped: ${reason}]`, () => {});
}
