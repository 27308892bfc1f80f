// The chain's clock: it starts at the emulator's anchor (`now`) and runs with the wall
// clock from there, as the command's own clock does under PAYREC_EMULATOR_NOW. A record
// stamped later than it (live traffic, POST /_emulator/records) moves it forward to that
// second: the block holding the record exists, so the chain has reached it. Nothing else
// moves it, so the same anchor gives the same head, on any day.

export class ChainClock {
  /** Chain time minus wall time, in milliseconds. */
  private offsetMs: number;

  constructor(
    anchor: number,
    private readonly wallMs: () => number = Date.now,
  ) {
    this.offsetMs = anchor * 1000 - wallMs();
  }

  /** Unix seconds of the newest block. */
  now(): number {
    return Math.floor((this.wallMs() + this.offsetMs) / 1000);
  }

  /** A record is stamped `timestamp`: the chain has mined its block. */
  reach(timestamp: number): void {
    const ahead = timestamp - this.now();
    if (ahead > 0) this.offsetMs += ahead * 1000;
  }

  /** Mines `seconds` more blocks at once (POST /_emulator/chain/advance). */
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}
