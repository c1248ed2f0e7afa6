/**
 * Starting a worker thread on a script of the package (Node only; imported by the loaders'
 * parse pool and the engine's ingest pool, never by the core entry).
 * @module
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Starts a worker on `url`. A TypeScript script (the sources, under vitest or tsx) is loaded
 * through tsx's loader, registered inside the worker (a `--import` flag does not reach it).
 */
export function startScriptWorker(url: URL, resourceLimits?: ResourceLimits): Worker {
  const options = resourceLimits === undefined ? {} : { resourceLimits };
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  // tsx's ES module API (`require.resolve` finds its CommonJS twin, next to it).
  const api = createRequire(url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const code =
    `import(${JSON.stringify(pathToFileURL(api).href)}).then(({ register }) => { register(); ` +
    `return import(${JSON.stringify(url.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}
