// A small seeded PRNG (mulberry32) and the helpers the generators need. The emulator's
// data must be identical for the same seed on every machine and Node version, which
// Math.random cannot give.

/** Mixes 32-bit integers into a well-spread 32-bit seed (murmur3's finaliser, chained). */
export function mixSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** FNV-1a of a string, so names (chain, collection) can take part in a seed. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  }
  return h >>> 0;
}

/** Room for 64 hex characters; multiple of 4 for writeUInt32BE. */
const scratch = Buffer.alloc(32);

export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next unsigned 32-bit integer (mulberry32). */
  uint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)];
  }

  /** `count` lower-case hex characters (at most 64). Buffer's hex encoder is the fastest way to a flat string. */
  hex(count: number): string {
    const bytes = Math.ceil(count / 2);
    for (let i = 0; i < bytes; i += 4) scratch.writeUInt32BE(this.uint32(), i);
    const out = scratch.toString('hex', 0, bytes);
    return out.length === count ? out : out.slice(0, count);
  }

  /** `count` decimal digits; the first is never 0 when `leadingNonZero`. Nine digits per draw. */
  digits(count: number, leadingNonZero = false): string {
    let out = leadingNonZero ? String(this.int(1, 9)) : '';
    while (out.length < count) out += String(this.uint32() % 1_000_000_000).padStart(9, '0');
    return out.length === count ? out : out.slice(0, count);
  }
}
