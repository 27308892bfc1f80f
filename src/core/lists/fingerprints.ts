// Identities a walk has yielded, kept as 64-bit fingerprints in a flat table rather than
// as strings: 16 bytes a record at worst. A fingerprint that matches a different
// identity would drop a record; with 64 bits, a walk of a million records meets one with
// odds of about 1 in 37 million.

// The fingerprint of the identity last hashed: two words in module variables rather than
// an array per call (a third of the walk's checks went to those arrays and their copies).
let hashHi = 0;
let hashLo = 0;

/**
 * Sets hashHi and hashLo to two independent 32-bit FNV-1a hashes of a string's UTF-16
 * code units (different offsets and a second mixing step); never (0, 0), which marks
 * an empty slot: that one is stored as (0, 1).
 */
function fingerprint(s: string): void {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  hashHi = a >>> 0;
  hashLo = b >>> 0;
  if (hashHi === 0 && hashLo === 0) hashLo = 1;
}

/** The first slot to probe for a fingerprint, of `slots`. */
const firstSlot = (hi: number, lo: number, slots: number) => ((hi ^ Math.imul(lo, 0x9e3779b1)) >>> 0) % slots;

export class Fingerprints {
  /** Pairs of (high, low) words; (0, 0) marks an empty slot. */
  private table = new Uint32Array(2 * 1024);
  private count = 0;

  /** Adds an identity unless it is here or in `other`: false when it was in either (hashed once for both). */
  addUnlessIn(other: Fingerprints | undefined, identity: string): boolean {
    fingerprint(identity);
    if (other?.hasHashed()) return false;
    return this.addHashed();
  }

  private hasHashed(): boolean {
    const at = this.slotOf(hashHi, hashLo);
    return this.table[at] === hashHi && this.table[at + 1] === hashLo;
  }

  private addHashed(): boolean {
    if (2 * (this.count + 1) > this.table.length / 2) this.grow();
    const at = this.slotOf(hashHi, hashLo);
    if (this.table[at] === hashHi && this.table[at + 1] === hashLo) return false;
    this.table[at] = hashHi;
    this.table[at + 1] = hashLo;
    this.count++;
    return true;
  }

  /** Where a fingerprint is, or the empty slot where it would go. */
  private slotOf(hi: number, lo: number): number {
    const table = this.table;
    const slots = table.length / 2;
    for (let i = firstSlot(hi, lo, slots); ; i = i + 1 === slots ? 0 : i + 1) {
      const h = table[2 * i];
      const l = table[2 * i + 1];
      if ((h === 0 && l === 0) || (h === hi && l === lo)) return 2 * i;
    }
  }

  /** Doubles the table (kept at most half full, so probes stay short). */
  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += 2) {
      const hi = old[at];
      const lo = old[at + 1];
      if (hi === 0 && lo === 0) continue;
      const to = this.slotOf(hi, lo);
      this.table[to] = hi;
      this.table[to + 1] = lo;
    }
  }
}
