/**
 * The WebAssembly SIMD kernel of the exact scan, bound to one space's memory: the scores
 * (float64) at byte 0 and the dimension-major columns (float32) after them, both padded for
 * the kernel's eight-slot steps. Where WebAssembly or its SIMD is unavailable (or code
 * generation is disallowed), `createScanMemory` returns null and the space keeps plain
 * typed arrays, scanned by the JS loop.
 */
import { VECTOR_SCAN_WASM } from './vector-scan-wasm.js';

/** Slots the kernel may read and write past the last one: the scores and columns are padded by this many. */
export const SCAN_PAD = 8;

/** `(scoresAddress, size, …column addresses, …weights)`: adds the weighted columns to the scores. */
type Kernel = (...args: number[]) => void;

/** One space's kernel memory and its views. */
export interface ScanMemory {
  /** Adds `Σ wⱼ · column` over eight columns (byte addresses) to the scores at byte `scores`. */
  readonly acc8: Kernel;
  /** The same over four columns. */
  readonly acc4: Kernel;
  /** The same over one column. */
  readonly acc1: Kernel;
  /** The scores, `capacity + SCAN_PAD` long, at byte 0. */
  readonly scores: Float64Array;
  /** The columns, `dimensions · capacity` long (padded after), at byte `dataOffset`. */
  readonly data: Float32Array;
  /** Byte address of `data[0]`. */
  readonly dataOffset: number;
}

let compiled: WebAssembly.Module | null | undefined;

/** The kernel's module, compiled once; null where WebAssembly SIMD cannot run. */
function scanModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  compiled = null;
  try {
    if (typeof WebAssembly !== 'object' || typeof atob !== 'function') return null;
    const text = atob(VECTOR_SCAN_WASM);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    if (WebAssembly.validate(bytes)) compiled = new WebAssembly.Module(bytes);
  } catch {
    compiled = null; // e.g. an edge runtime that disallows compiling code at run time
  }
  return compiled;
}

const PAGE = 65_536;

/**
 * Kernel memory for `dimensions × capacity` components, or null when WebAssembly SIMD is
 * unavailable or the memory cannot be had (then the caller uses plain typed arrays).
 */
export function createScanMemory(dimensions: number, capacity: number): ScanMemory | null {
  const module = scanModule();
  if (module === null) return null;
  const scoreBytes = (capacity + SCAN_PAD) * 8;
  const dataOffset = Math.ceil(scoreBytes / 16) * 16;
  const bytes = dataOffset + (dimensions * capacity + SCAN_PAD) * 4;
  if (bytes > 2 ** 31) return null;
  try {
    const memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / PAGE) });
    const { exports } = new WebAssembly.Instance(module, { env: { memory } });
    return {
      acc8: exports['acc8'] as Kernel,
      acc4: exports['acc4'] as Kernel,
      acc1: exports['acc1'] as Kernel,
      scores: new Float64Array(memory.buffer, 0, capacity + SCAN_PAD),
      data: new Float32Array(memory.buffer, dataOffset, dimensions * capacity),
      dataOffset,
    };
  } catch {
    return null;
  }
}
