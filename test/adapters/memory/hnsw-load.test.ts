/**
 * Loading hnswlib-wasm (the memory vector store does it when it crosses its exact-search
 * limit) drops only hnswlib's own IndexedDB noise: the host's console keeps working meanwhile.
 * A file of its own, so that the load really happens here (it is cached per module instance).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isHnswlibNoise, loadHnswLibrary } from '../../../src/adapters/memory/hnsw-index.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('loading hnswlib-wasm', () => {
  it('delivers the host’s console messages issued while it loads, and restores the console', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const loading = loadHnswLibrary();
    console.log('host: right after the call');
    const timer = setInterval(() => console.warn('host: timer during the load'), 1);
    try {
      await loading;
      await new Promise((resolve) => setTimeout(resolve, 5));
    } finally {
      clearInterval(timer);
    }
    expect(log).toHaveBeenCalledWith('host: right after the call');
    expect(warn).toHaveBeenCalledWith('host: timer during the load');
    for (const spy of [log, warn, error]) {
      for (const args of spy.mock.calls) expect(isHnswlibNoise(args), String(args[0])).toBe(false);
    }
    expect(console.log).toBe(log);
    expect(console.warn).toBe(warn);
    expect(console.error).toBe(error);
  });

  it('recognises exactly hnswlib’s IndexedDB messages as noise', () => {
    expect(isHnswlibNoise(['EmscriptenFileSystemManager: Mounting IDBFS filesystem...\n'])).toBe(
      true,
    );
    expect(
      isHnswlibNoise(['Aborted(Assertion failed: IDBFS used, but indexedDB not supported)']),
    ).toBe(true);
    expect(isHnswlibNoise(['b. jsFS Error: syncing FS:', new Error('unreachable')])).toBe(true);
    expect(isHnswlibNoise(['Error initializing the library:', new Error('x')])).toBe(false);
    expect(isHnswlibNoise(['host: EmscriptenFileSystemManager: quoted'])).toBe(false);
    expect(isHnswlibNoise([{ message: 'EmscriptenFileSystemManager: ' }])).toBe(false);
    expect(isHnswlibNoise([])).toBe(false);
  });
});
