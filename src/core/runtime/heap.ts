import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

// V8's flags of payrec's own process, set for the command it runs. Only the process
// that payrec's binary starts sets them (context.ts processContext): a run inside another
// program (a test's worker, payrecInProcess) leaves that program's V8 as it found it.

/**
 * Peak memory of a long `--all` export (measured by test/bench: 1,000,000 records).
 * V8's optimising compiler takes ~35 MB to compile undici's WebAssembly HTTP parser,
 * more than the export itself; the baseline compiler parses pages as fast here. And
 * the records of each page die young, but V8 lets the old generation grow far past
 * the small live set (~20 MB) between full collections. A growth of 80 % keeps the
 * peak of a 1,000,000-record CSV export under 150 MB (139 MB; 149 MB at 100 %, 193 MB
 * with V8's own) with half the full collections of 20 % (19 against 38 at 300,000
 * records: test/bench/pace.mjs, issue 33). Not for a sync: its memory is
 * DuckDB's, and the extra full collections cost a first sync of 300,000 transfers
 * about 0.25 s (test/bench/mirror.mjs). Nor for a workbook (-f xlsx): exceljs makes
 * garbage for every cell, and they cost a 300,000-row workbook a sixth of its CPU
 * time (its peak stays flat without them, ~220 MB against ~140 MB). Set before the
 * first request compiles the parser.
 */
export function tuneHeap(smallHeap: boolean): void {
  setFlagsFromString('--liftoff-only');
  if (!smallHeap) return;
  setFlagsFromString('--heap-growing-percent=80');
  capYoungGeneration();
}

/** The most V8's young generation may hold (its two semispaces): half of V8's own 32 MB. */
const YOUNG_GENERATION_CAP = 16 * 1024 * 1024;

/**
 * V8 doubles the young generation (from 2 MB) each time as much as it holds has
 * survived collections since it last grew, so an export's pages in flight take it
 * to 32 MB within its first dozen collections. Its largest size is set when the process
 * starts (`--max-semi-space-size` has no effect later), but how much it grows by is
 * read each time it grows: once it has reached 16 MB, a growth factor of 1 keeps it
 * there. Peak RSS of the 300,000-record CSV export: 115–124 MB against 137–144 MB,
 * 128–133 MB against 152–155 MB at --concurrency 16; the same CPU time without
 * --concurrency, about 15 % more at --concurrency 4 (more collections). At 8 MB the
 * CPU time rose by a third (more records promoted). The callback comes a turn of the
 * event loop after the collection, long before the young generation could grow again
 * (as much again must first survive collections). docs/performance.md, issue 49.
 */
function capYoungGeneration(): void {
  const observer = new PerformanceObserver(() => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (young && young.space_size < YOUNG_GENERATION_CAP) return;
    if (young) setFlagsFromString('--semi-space-growth-factor=1');
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
}
