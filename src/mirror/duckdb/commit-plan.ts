import type { CommitPlan } from '../engine.js';

// When DuckDB's walks commit (MirrorStore.commitPlan, used by sync.ts).

/** DuckDB's row group: the rows it compresses and stores together (see RowGroupCommits). */
const ROW_GROUP = 122_880;
/** See RowGroupCommits. */
const COMMIT_MS = 3000;

/**
 * When a walk commits: often enough that an interruption costs a few seconds of
 * fetching at most, and so that commits stay cheap. DuckDB stores the rows a
 * transaction adds in row groups of their own: a transaction that adds whole row groups
 * writes them once, straight into the file, but one that ends inside a row group leaves
 * it partly filled, and the checkpoint when the mirror closes rewrites such row groups
 * together (about a second of a first sync of 300,000 transfers that committed every
 * 3 s). So a walk that only adds rows (a first sync) commits where its transaction
 * holds whole row groups, which at full speed comes every two seconds or so, and at
 * the latest after twice COMMIT_MS; one that adds less than a row group in COMMIT_MS is
 * slow enough that a commit every COMMIT_MS costs little. A walk that also updates rows
 * commits every COMMIT_MS or row group of records. Decided as batches are handed over,
 * so that a batch can end where a row group does.
 */
export class RowGroupCommits implements CommitPlan {
  private rows = 0;
  private since?: number;

  /** `appends`: every record of the walk is a new row (see Upserter.appendsOnly). */
  constructor(private readonly appends: boolean) {}

  /** Whether a batch of `n` more records would fill the transaction's row groups exactly. */
  fillsCommit(n: number): boolean {
    return this.appends && (this.rows + n) % ROW_GROUP === 0;
  }

  /** Takes a batch of `n` records into the transaction; true when the transaction should commit after it. */
  take(n: number): boolean {
    this.since ??= performance.now();
    this.rows += n;
    const elapsed = performance.now() - this.since;
    const commit = this.appends
      ? this.rows % ROW_GROUP === 0 || elapsed >= 2 * COMMIT_MS || (elapsed >= COMMIT_MS && this.rows < ROW_GROUP)
      : elapsed >= COMMIT_MS || this.rows >= ROW_GROUP;
    if (commit) {
      this.rows = 0;
      this.since = undefined;
    }
    return commit;
  }
}
