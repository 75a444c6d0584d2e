/**
 * A QR code encoder (ISO/IEC 18004) for the TOTP enrolment URI: byte mode, the
 * smallest version (1-40) that holds the text at the requested error-correction
 * level, the mask with the lowest penalty. No dependency has one; this is the
 * whole of what the auth API needs.
 */

export type QrErrorCorrection = 'L' | 'M' | 'Q' | 'H';

/** Dark modules, `[y][x]`, without the quiet zone. */
export type QrMatrix = readonly (readonly boolean[])[];

const ECL_INDEX: Readonly<Record<QrErrorCorrection, number>> = { L: 0, M: 1, Q: 2, H: 3 };
/** The two format-information bits of each level. */
const ECL_FORMAT_BITS: Readonly<Record<QrErrorCorrection, number>> = { L: 1, M: 0, Q: 3, H: 2 };

// Per level (L, M, Q, H), indexed by version (index 0 unused): error-correction codewords per block, and blocks.
const ECC_CODEWORDS_PER_BLOCK: readonly (readonly number[])[] = [
  [-1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  [-1, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [-1, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
];
const ERROR_CORRECTION_BLOCKS: readonly (readonly number[])[] = [
  [-1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  [-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  [-1, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  [-1, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
];

function at(table: readonly (readonly number[])[], ecl: QrErrorCorrection, version: number): number {
  return (table[ECL_INDEX[ecl]] as readonly number[])[version] as number;
}

/** Modules left for codewords once every function pattern of `version` is placed. */
function rawDataModules(version: number): number {
  let result = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const alignments = Math.floor(version / 7) + 2;
    result -= (25 * alignments - 10) * alignments - 55;
    if (version >= 7) result -= 36;
  }
  return result;
}

function dataCodewords(version: number, ecl: QrErrorCorrection): number {
  return Math.floor(rawDataModules(version) / 8) - at(ECC_CODEWORDS_PER_BLOCK, ecl, version) * at(ERROR_CORRECTION_BLOCKS, ecl, version);
}

// GF(2^8) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
function gfMultiply(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i -= 1) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z;
}

/** The Reed-Solomon generator polynomial of `degree`, highest coefficient (1) left out. */
export function reedSolomonDivisor(degree: number): number[] {
  const result: number[] = new Array<number>(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i += 1) {
    for (let j = 0; j < degree; j += 1) {
      result[j] = gfMultiply(result[j] as number, root);
      if (j + 1 < degree) result[j] = (result[j] as number) ^ (result[j + 1] as number);
    }
    root = gfMultiply(root, 0x02);
  }
  return result;
}

export function reedSolomonRemainder(data: readonly number[], divisor: readonly number[]): number[] {
  const result: number[] = divisor.map(() => 0);
  for (const byte of data) {
    const factor = byte ^ (result.shift() as number);
    result.push(0);
    divisor.forEach((coefficient, i) => {
      result[i] = (result[i] as number) ^ gfMultiply(coefficient, factor);
    });
  }
  return result;
}

function chooseVersion(length: number, ecl: QrErrorCorrection): number {
  for (let version = 1; version <= 40; version += 1) {
    const countBits = version <= 9 ? 8 : 16;
    if (4 + countBits + length * 8 <= dataCodewords(version, ecl) * 8) return version;
  }
  throw new RangeError('text too long for a QR code');
}

/** Mode indicator, count, bytes, terminator, padding: the data codewords of `version`. */
function dataCodewordsOf(bytes: Uint8Array, version: number, ecl: QrErrorCorrection): number[] {
  const bits: number[] = [];
  const push = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i -= 1) bits.push((value >>> i) & 1);
  };
  push(0b0100, 4);
  push(bytes.length, version <= 9 ? 8 : 16);
  for (const byte of bytes) push(byte, 8);
  const capacity = dataCodewords(version, ecl) * 8;
  push(0, Math.min(4, capacity - bits.length));
  push(0, (8 - (bits.length % 8)) % 8);
  const codewords: number[] = [];
  for (let i = 0; i < bits.length; i += 8) codewords.push(bits.slice(i, i + 8).reduce((acc, bit) => (acc << 1) | bit, 0));
  for (let pad = 0xec; codewords.length < capacity / 8; pad ^= 0xec ^ 0x11) codewords.push(pad);
  return codewords;
}

/** Splits the data into blocks, appends each block's error correction, and interleaves them. */
function withErrorCorrection(data: readonly number[], version: number, ecl: QrErrorCorrection): number[] {
  const blockCount = at(ERROR_CORRECTION_BLOCKS, ecl, version);
  const eccLength = at(ECC_CODEWORDS_PER_BLOCK, ecl, version);
  const rawCodewords = Math.floor(rawDataModules(version) / 8);
  const shortBlocks = blockCount - (rawCodewords % blockCount);
  const shortBlockLength = Math.floor(rawCodewords / blockCount);
  const divisor = reedSolomonDivisor(eccLength);
  const blocks: number[][] = [];
  for (let i = 0, k = 0; i < blockCount; i += 1) {
    const dataLength = shortBlockLength - eccLength + (i < shortBlocks ? 0 : 1);
    const block = data.slice(k, k + dataLength);
    k += dataLength;
    const ecc = reedSolomonRemainder(block, divisor);
    if (i < shortBlocks) block.push(0);
    blocks.push([...block, ...ecc]);
  }
  const result: number[] = [];
  for (let i = 0; i < (blocks[0] as number[]).length; i += 1) {
    blocks.forEach((block, j) => {
      // Short blocks carry a placeholder where long blocks have their last data codeword.
      if (i !== shortBlockLength - eccLength || j >= shortBlocks) result.push(block[i] as number);
    });
  }
  return result;
}

function alignmentPositions(version: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const size = version * 4 + 17;
  const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const result = [6];
  for (let position = size - 7; result.length < count; position -= step) result.splice(1, 0, position);
  return result;
}

class Grid {
  readonly modules: boolean[][];
  readonly reserved: boolean[][];

  constructor(readonly size: number) {
    this.modules = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
    this.reserved = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  }

  setFunction(x: number, y: number, dark: boolean): void {
    (this.modules[y] as boolean[])[x] = dark;
    (this.reserved[y] as boolean[])[x] = true;
  }

  isReserved(x: number, y: number): boolean {
    return (this.reserved[y] as boolean[])[x] as boolean;
  }

  flip(x: number, y: number): void {
    const row = this.modules[y] as boolean[];
    row[x] = !row[x];
  }
}

function drawFinder(grid: Grid, cx: number, cy: number): void {
  for (let dy = -4; dy <= 4; dy += 1) {
    for (let dx = -4; dx <= 4; dx += 1) {
      const x = cx + dx;
      const y = cy + dy;
      const distance = Math.max(Math.abs(dx), Math.abs(dy));
      if (x >= 0 && x < grid.size && y >= 0 && y < grid.size) grid.setFunction(x, y, distance !== 2 && distance !== 4);
    }
  }
}

function drawFormatBits(grid: Grid, ecl: QrErrorCorrection, mask: number): void {
  const data = (ECL_FORMAT_BITS[ecl] << 3) | mask;
  let remainder = data;
  for (let i = 0; i < 10; i += 1) remainder = (remainder << 1) ^ ((remainder >>> 9) * 0x537);
  const bits = ((data << 10) | remainder) ^ 0x5412;
  const bit = (i: number) => ((bits >>> i) & 1) === 1;
  const size = grid.size;
  for (let i = 0; i <= 5; i += 1) grid.setFunction(8, i, bit(i));
  grid.setFunction(8, 7, bit(6));
  grid.setFunction(8, 8, bit(7));
  grid.setFunction(7, 8, bit(8));
  for (let i = 9; i < 15; i += 1) grid.setFunction(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i += 1) grid.setFunction(size - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i += 1) grid.setFunction(8, size - 15 + i, bit(i));
  grid.setFunction(8, size - 8, true);
}

function drawVersionBits(grid: Grid, version: number): void {
  if (version < 7) return;
  let remainder = version;
  for (let i = 0; i < 12; i += 1) remainder = (remainder << 1) ^ ((remainder >>> 11) * 0x1f25);
  const bits = (version << 12) | remainder;
  for (let i = 0; i < 18; i += 1) {
    const dark = ((bits >>> i) & 1) === 1;
    const a = grid.size - 11 + (i % 3);
    const b = Math.floor(i / 3);
    grid.setFunction(a, b, dark);
    grid.setFunction(b, a, dark);
  }
}

function drawFunctionPatterns(grid: Grid, version: number, ecl: QrErrorCorrection): void {
  const size = grid.size;
  for (let i = 0; i < size; i += 1) {
    grid.setFunction(6, i, i % 2 === 0);
    grid.setFunction(i, 6, i % 2 === 0);
  }
  drawFinder(grid, 3, 3);
  drawFinder(grid, size - 4, 3);
  drawFinder(grid, 3, size - 4);
  const positions = alignmentPositions(version);
  const last = positions.length - 1;
  positions.forEach((y, i) => {
    positions.forEach((x, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy += 1) {
        for (let dx = -2; dx <= 2; dx += 1) grid.setFunction(x + dx, y + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    });
  });
  drawFormatBits(grid, ecl, 0);
  drawVersionBits(grid, version);
}

/** Codeword bits in the standard zigzag, two columns at a time from the right, skipping the timing column. */
function drawCodewords(grid: Grid, codewords: readonly number[]): void {
  const size = grid.size;
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((right + 1) & 2) === 0;
    for (let vertical = 0; vertical < size; vertical += 1) {
      for (let j = 0; j < 2; j += 1) {
        const x = right - j;
        const y = upward ? size - 1 - vertical : vertical;
        if (!grid.isReserved(x, y) && i < codewords.length * 8) {
          (grid.modules[y] as boolean[])[x] = (((codewords[i >>> 3] as number) >>> (7 - (i & 7))) & 1) === 1;
          i += 1;
        }
      }
    }
  }
}

const MASKS: ReadonlyArray<(x: number, y: number) => boolean> = [
  (x, y) => (x + y) % 2 === 0,
  (_x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

function applyMask(grid: Grid, mask: number): void {
  const condition = MASKS[mask] as (x: number, y: number) => boolean;
  for (let y = 0; y < grid.size; y += 1) {
    for (let x = 0; x < grid.size; x += 1) if (!grid.isReserved(x, y) && condition(x, y)) grid.flip(x, y);
  }
}

const FINDER_LIKE = [
  [true, false, true, true, true, false, true, false, false, false, false],
  [false, false, false, false, true, false, true, true, true, false, true],
];

function linePenalty(line: readonly boolean[]): number {
  let penalty = 0;
  let run = 1;
  for (let i = 1; i <= line.length; i += 1) {
    if (i < line.length && line[i] === line[i - 1]) {
      run += 1;
      continue;
    }
    if (run >= 5) penalty += run - 2;
    run = 1;
  }
  for (let i = 0; i + 11 <= line.length; i += 1) {
    if (FINDER_LIKE.some((pattern) => pattern.every((dark, k) => line[i + k] === dark))) penalty += 40;
  }
  return penalty;
}

/** The standard's four penalty rules: runs, 2×2 blocks, finder-like patterns, dark/light balance. */
function penaltyOf(modules: QrMatrix): number {
  const size = modules.length;
  const module = (x: number, y: number) => (modules[y] as readonly boolean[])[x] as boolean;
  let penalty = 0;
  let dark = 0;
  for (let i = 0; i < size; i += 1) {
    penalty += linePenalty(modules[i] as readonly boolean[]);
    penalty += linePenalty(modules.map((row) => row[i] as boolean));
  }
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      if (module(x, y)) dark += 1;
      if (x + 1 < size && y + 1 < size) {
        const color = module(x, y);
        if (module(x + 1, y) === color && module(x, y + 1) === color && module(x + 1, y + 1) === color) penalty += 3;
      }
    }
  }
  const total = size * size;
  penalty += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
  return penalty;
}

/** The QR code of `text` (UTF-8, byte mode) at error-correction level `ecl`. */
export function encodeQr(text: string, ecl: QrErrorCorrection): QrMatrix {
  const bytes = Buffer.from(text, 'utf8');
  const version = chooseVersion(bytes.length, ecl);
  const codewords = withErrorCorrection(dataCodewordsOf(bytes, version, ecl), version, ecl);
  let best: { penalty: number; modules: QrMatrix } | null = null;
  for (let mask = 0; mask < MASKS.length; mask += 1) {
    const grid = new Grid(version * 4 + 17);
    drawFunctionPatterns(grid, version, ecl);
    drawCodewords(grid, codewords);
    applyMask(grid, mask);
    drawFormatBits(grid, ecl, mask);
    const penalty = penaltyOf(grid.modules);
    if (best === null || penalty < best.penalty) best = { penalty, modules: grid.modules };
  }
  return (best as { modules: QrMatrix }).modules;
}

/** The four-module light border scanners need around the code. */
const QUIET_ZONE = 4;

/**
 * An SVG of the code: one path of dark squares on a light square. Free of `#` and
 * `%`, because auth-js turns it into a data URI without percent-encoding it.
 */
export function qrSvg(modules: QrMatrix, moduleSize = 3): string {
  const side = modules.length + QUIET_ZONE * 2;
  let path = '';
  modules.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) path += `M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`;
    });
  });
  const pixels = side * moduleSize;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pixels}" height="${pixels}" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="white"/><path fill="black" d="${path}"/></svg>`
  );
}
