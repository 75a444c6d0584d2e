/**
 * A small seeded PRNG (mulberry32) for the fuzzers: the same seed gives the same cases on
 * every machine, so a failure printed with its seed and case number reproduces exactly.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The generator of case `index` of a run seeded with `seed`: cases reproduce one by one. */
  static forCase(seed: number, index: number): Prng {
    // splitmix32-style mixing so neighbouring (seed, index) pairs give unrelated streams.
    let h = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    return new Prng((h ^ (h >>> 16)) >>> 0);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** `count` items produced by `make`, joined with `separator`. */
  repeat(count: number, make: () => string, separator: string): string {
    return Array.from({ length: count }, make).join(separator);
  }
}
