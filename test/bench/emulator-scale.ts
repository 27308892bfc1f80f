import { describe, expect, it } from 'vitest';
import { call, start } from '../unit/emulator-helpers.js';

// `npm run bench:emulator`: a million records. Prints generation time (transfers; billings
// as lifecycles), page latency and memory (figures, not assertions, since machines differ).
// A bench, not a test: its name is no *.test.ts, so `npm test` never runs it (it took
// minutes, and was skipped unless asked for, so CI never ran it); its own vitest config
// (vitest.config.ts beside it) picks it up.

describe('one million records', () => {
  it('serves 1000-record pages in milliseconds', async () => {
    const rss0 = process.memoryUsage().rss;
    const started = performance.now();
    const emu = await start({ records: 1_000_000 });
    const startup = performance.now() - started;
    try {
      const path = '/v1/bsc/one-time/transfers';
      let t = performance.now();
      const first = await call(emu, `${path}?limit=1`);
      const generation = performance.now() - t;
      expect(first.body.total).toBe(1_000_000);
      const timings: Record<string, number> = {};
      for (const q of ['limit=1000', 'limit=1000&sort=asc', 'limit=1000&offset=900000', `limit=1000&from=${first.body.data[0].timestamp - 30 * 86400}`, 'limit=1000&token=USDT']) {
        const runs = [];
        for (let i = 0; i < 5; i++) {
          t = performance.now();
          const res = await call(emu, `${path}?${q}`);
          runs.push(performance.now() - t);
          expect(res.body.data).toHaveLength(1000);
        }
        timings[q] = Math.min(...runs);
      }
      const rss = (process.memoryUsage().rss - rss0) / 1e6;
      console.log(
        `startup ${startup.toFixed(0)} ms; generation of 1M transfers ${generation.toFixed(0)} ms; extra RSS ${rss.toFixed(0)} MB\n` +
          Object.entries(timings).map(([q, ms]) => `  ${q}: ${ms.toFixed(1)} ms (best of 5, client included)`).join('\n'),
      );
    } finally {
      await emu.close();
    }
  });

  it('simulates a million billings as subscription lifecycles', async () => {
    const rss0 = process.memoryUsage().rss;
    const emu = await start({ records: 1_000_000 });
    try {
      let t = performance.now();
      const billings = await call(emu, `/v1/bsc/fixed-recurring/plans/${emu.fixtures('bsc').plans['fixed-recurring'][0]}/billings?limit=1000`);
      const generation = performance.now() - t;
      expect(billings.body.data).toHaveLength(1000);
      t = performance.now();
      const cancellations = await call(emu, `/v1/bsc/fixed-recurring/plans/${emu.fixtures('bsc').plans['fixed-recurring'][0]}/cancellations?limit=1`);
      const cancelling = performance.now() - t;
      const truth = emu.subscriptions('bsc');
      expect(truth.subscriptions.reduce((n, s) => n + s.billings.length, 0)).toBe(1_000_000);
      console.log(
        `1M billings: simulation and store ${generation.toFixed(0)} ms, then cancellations ${cancelling.toFixed(0)} ms; ` +
          `${truth.subscriptions.length} subscriptions, ${cancellations.body.total} cancellations of the documentation's plan; ` +
          `extra RSS ${((process.memoryUsage().rss - rss0) / 1e6).toFixed(0)} MB`,
      );
    } finally {
      await emu.close();
    }
  });
});
