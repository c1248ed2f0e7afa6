/**
 * The parse worker: parses files' bytes off the calling thread, so that a parser stuck on a
 * file is terminated at its deadline (`limits.parseTimeoutMs`) without the process. Built as
 * `dist/loaders-worker.js` (tsup.config.ts); started by `pool.ts`.
 */
import { parseBytes } from './parse.js';
import { serveParseJobs } from './parse-protocol.js';

serveParseJobs((job) => parseBytes(job));
