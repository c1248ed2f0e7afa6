import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteStores, type SqliteStores } from '../../../src/adapters/sqlite/index.js';
import {
  testGraphStore,
  testKeywordIndex,
  testLearningSink,
  testSessionStore,
} from '../../../src/testing/index.js';

// One file for the whole suite, as an application would use it; tests stay apart through
// fresh user ids and namespaces.
const directory = mkdtempSync(join(tmpdir(), 'cortexis-sqlite-'));
let opened: Promise<SqliteStores> | undefined;
const stores = (): Promise<SqliteStores> =>
  (opened ??= createSqliteStores({ path: join(directory, 'conformance.db') }));

afterAll(async () => {
  if (opened) (await opened).close();
  rmSync(directory, { recursive: true, force: true });
});

testSessionStore({
  title: 'sqlite session store',
  create: async () => (await stores()).sessionStore,
});
testLearningSink({
  title: 'sqlite learning sink',
  create: async () => (await stores()).learningSink,
});
testGraphStore({ title: 'sqlite graph store', create: async () => (await stores()).graphStore });
testKeywordIndex({
  title: 'sqlite FTS5 keyword index',
  create: async () => (await stores()).keywordIndex,
});
testSessionStore({
  title: 'sqlite session store (in-memory database)',
  create: async () => (await createSqliteStores({ path: ':memory:' })).sessionStore,
});
