/**
 * PDF stream filters the own reader decodes (ISO 32000-1 §7.4.4): Flate, within a byte budget,
 * and the PNG predictors of `/DecodeParms`.
 */
import { constants, inflateSync } from 'node:zlib';
import { numberOf, PdfUnsupportedError, type PdfDict } from './pdf-objects.js';

/**
 * `data` inflated (zlib, a truncated stream read as far as it goes), or `undefined` when it
 * inflates to more than `room` bytes: zlib stops there (`maxOutputLength`), it never holds more.
 * A damaged stream throws `PdfUnsupportedError`.
 */
export function inflateWithin(data: Uint8Array, room: number): Buffer | undefined {
  try {
    return inflateSync(data, {
      maxOutputLength: Math.max(1, room + 1),
      finishFlush: constants.Z_SYNC_FLUSH,
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
    throw new PdfUnsupportedError(`damaged compressed stream: ${(error as Error).message}`);
  }
}

/** PNG predictors (`/Predictor` 10–15) undone; TIFF predictor 2 is declined. */
export function unpredict(data: Uint8Array, parms: PdfDict): Uint8Array {
  const predictor = numberOf(parms.get('Predictor'), 1);
  if (predictor <= 1) return data;
  if (predictor < 10) throw new PdfUnsupportedError(`predictor ${predictor}`);
  const colors = numberOf(parms.get('Colors'), 1);
  const bits = numberOf(parms.get('BitsPerComponent'), 8);
  const columns = numberOf(parms.get('Columns'), 1);
  const bpp = Math.max(1, Math.ceil((colors * bits) / 8));
  const rowLength = Math.ceil((colors * bits * columns) / 8);
  if (!(rowLength > 0 && rowLength < 1 << 24)) throw new PdfUnsupportedError('bad predictor row');
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  let prev = new Uint8Array(rowLength);
  for (let row = 0; row < rows; row++) {
    const filter = data[row * (rowLength + 1)]!;
    const source = data.subarray(row * (rowLength + 1) + 1, (row + 1) * (rowLength + 1));
    const current = out.subarray(row * rowLength, (row + 1) * rowLength);
    for (let index = 0; index < rowLength; index++) {
      const raw = source[index]!;
      const left = index >= bpp ? current[index - bpp]! : 0;
      const up = prev[index]!;
      const upLeft = index >= bpp ? prev[index - bpp]! : 0;
      let value: number;
      switch (filter) {
        case 0:
          value = raw;
          break;
        case 1:
          value = raw + left;
          break;
        case 2:
          value = raw + up;
          break;
        case 3:
          value = raw + ((left + up) >> 1);
          break;
        case 4: {
          const p = left + up - upLeft;
          const pa = Math.abs(p - left);
          const pb = Math.abs(p - up);
          const pc = Math.abs(p - upLeft);
          value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
          break;
        }
        default:
          throw new PdfUnsupportedError(`PNG filter ${filter}`);
      }
      current[index] = value & 0xff;
    }
    prev = current;
  }
  return out;
}
