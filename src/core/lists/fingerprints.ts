// Identities a walk has yielded, kept as 64-bit fingerprints in a flat table rather than
// as strings: 16 bytes a record at worst. A fingerprint that matches a different
// identity would drop a record; with 64 bits, a walk of a million records meets one with
// odds of about 1 in 37 million.

/** Two independent 32-bit FNV-1a hashes of a string's UTF-16 code units (different offsets and a second mixing step). */
function hashes(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, b >>> 0];
}

/** A string's fingerprint; never (0, 0), which marks an empty slot. */
function fingerprint(s: string): [number, number] {
  const [hi, lo] = hashes(s);
  return hi === 0 && lo === 0 ? [0, 1] : [hi, lo];
}

export class Fingerprints {
  /** Pairs of (high, low) words; (0, 0) marks an empty slot, so a real (0, 0) is stored as (0, 1). */
  private table = new Uint32Array(2 * 1024);
  private count = 0;

  /** Adds an identity; false when it was there already. */
  add(identity: string): boolean {
    const [hi, lo] = fingerprint(identity);
    if (2 * (this.count + 1) > this.table.length / 2) this.grow();
    const at = this.slotOf(hi, lo);
    if (this.table[at] === hi && this.table[at + 1] === lo) return false;
    this.table[at] = hi;
    this.table[at + 1] = lo;
    this.count++;
    return true;
  }

  has(identity: string): boolean {
    const [hi, lo] = fingerprint(identity);
    const at = this.slotOf(hi, lo);
    return this.table[at] === hi && this.table[at + 1] === lo;
  }

  /** Where a fingerprint is, or the empty slot where it would go. */
  private slotOf(hi: number, lo: number): number {
    const slots = this.table.length / 2;
    for (let i = (hi ^ Math.imul(lo, 0x9e3779b1)) >>> 0; ; i++) {
      const at = 2 * (i % slots);
      const [h, l] = [this.table[at], this.table[at + 1]];
      if ((h === 0 && l === 0) || (h === hi && l === lo)) return at;
    }
  }

  /** Doubles the table (kept at most half full, so probes stay short). */
  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.count = 0;
    const slots = this.table.length / 2;
    for (let at = 0; at < old.length; at += 2) {
      const [hi, lo] = [old[at], old[at + 1]];
      if (hi === 0 && lo === 0) continue;
      for (let i = (hi ^ Math.imul(lo, 0x9e3779b1)) >>> 0; ; i++) {
        const to = 2 * (i % slots);
        if (this.table[to] === 0 && this.table[to + 1] === 0) {
          this.table[to] = hi;
          this.table[to + 1] = lo;
          this.count++;
          break;
        }
      }
    }
  }
}
