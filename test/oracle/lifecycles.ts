import fc from 'fast-check';
import type { BillingInput, CancellationInput } from '../../src/subscriptions/engine.js';
import type { Records } from './subscriptions.js';

// Generated subscription lifecycles for the engine's unit tests (fast-check arbitraries):
// 8pay's contract as the emulator runs it, records in any order with any signals, and a
// small world of seconds. Shared by test/unit/subscriptions-oracle.test.ts and
// subscriptions-values.test.ts; what to expect is always the oracle's
// (test/oracle/subscriptions.ts), never these generators'.

export const DAY = 86_400;
export const GRACE = 30 * DAY;
export const T0 = Date.UTC(2025, 0, 1) / 1000;
export const MONTHS = Array.from({ length: 24 }, (_, i) => ({ from: Date.UTC(2025, i, 1) / 1000, to: Date.UTC(2025, i + 1, 1) / 1000 }));
export const END = MONTHS[23].to;
// The same months in Europe/Berlin: a month starts at local midnight, 1 h before UTC's in
// winter time and 2 h before in summer time (last Sunday of March to last Sunday of
// October: April to October begin in summer time). October 2025 and 2026 hold the 25-hour
// day, March the 23-hour day.
export const BERLIN = MONTHS.map((_, i) => {
  const start = (k: number) => Date.UTC(2025, k, 1) / 1000 - ((k % 12) >= 3 && (k % 12) <= 9 ? 7_200 : 3_600);
  return { from: start(i), to: start(i + 1) };
});
export const SEED = 20_261_124;


export const PLANS = [
  { planId: 'daily', token: 'USDT', amount: '1.25', period: DAY },
  { planId: 'weekly', token: 'USDT', amount: '10', period: 7 * DAY },
  { planId: 'fortnight', token: 'EIGHT', amount: '3.3', period: 14 * DAY },
  { planId: 'p28', token: 'USDT', amount: '9.99', period: 28 * DAY },
  { planId: 'p30', token: 'USDT', amount: '10', period: 30 * DAY },
  { planId: 'p31', token: 'EIGHT', amount: '0.000000000000000007', period: 31 * DAY },
  { planId: 'quarter', token: 'USDT', amount: '29', period: 91 * DAY },
  { planId: 'half', token: 'EIGHT', amount: '55.5', period: 182 * DAY },
  { planId: 'year', token: 'USDT', amount: '120', period: 365 * DAY },
  { planId: 'odd', token: 'USDT', amount: '1', period: 100_003 },
];

const outcome = fc.constantFrom('paid', 'paid', 'paid', 'success0', 'statusFailed', 'pending');
export const cycleArb = fc.record({
  attempts: fc.array(outcome, { minLength: 1, maxLength: 4 }),
  delay: fc.integer({ min: 0, max: 2 * DAY }),
  retryGap: fc.integer({ min: 1, max: 5 * DAY }),
  skip: fc.integer({ min: 0, max: 8 }),
});
export const lifecycleArb = fc.record({
  plan: fc.integer({ min: 0, max: PLANS.length - 1 }),
  start: fc.integer({ min: T0 - 100 * DAY, max: END - DAY }),
  cycles: fc.array(cycleArb, { maxLength: 25 }),
  cancel: fc.option(fc.record({ afterCycle: fc.nat(30), gap: fc.integer({ min: 1, max: 20 * DAY }), forced: fc.boolean(), status: fc.constantFrom('confirmed', 'confirmed', 'pending', 'failed') }), { nil: undefined }),
});

export type Lifecycle = typeof lifecycleArb extends fc.Arbitrary<infer U> ? U : never;


/** Lifecycles as 8pay's contracts run them: subscribe paid, anchored cycles, retries, lapses, later billings of a later cycle, one cancellation and nothing after it. */
export function lifecycles(specs: Array<Lifecycle>): Records {
  const billings: BillingInput[] = [];
  const cancellations: CancellationInput[] = [];
  specs.forEach((spec, i) => {
    const plan = PLANS[spec.plan];
    const id = `sub${i}`;
    const bill = (timestamp: number, cycleStart: number, kind: string) =>
      billings.push({
        subscriptionId: id,
        planId: plan.planId,
        token: plan.token,
        amount: plan.amount,
        timestamp,
        cycleStart,
        cycleEnd: cycleStart + plan.period - 1,
        success: kind === 'success0' ? 0 : 1,
        transactionStatus: kind === 'statusFailed' ? 'failed' : kind === 'pending' ? 'pending' : 'confirmed',
        transactionHash: `0x${id}-${billings.length}`,
      });
    bill(spec.start, spec.start, 'paid');
    let cursor = spec.start;
    let cycleStart = spec.start + plan.period;
    let lastCycle = 0;
    for (const [k, cycle] of spec.cycles.entries()) {
      if (spec.cancel && k > spec.cancel.afterCycle) break;
      let t = Math.max(cursor + 1, cycleStart + cycle.delay);
      let wasPaid = false;
      for (const kind of cycle.attempts) {
        bill(t, cycleStart, kind);
        cursor = t;
        if (kind === 'paid') {
          wasPaid = true;
          break;
        }
        t += cycle.retryGap;
      }
      // Paid: the next anchored cycle. Not paid: retried later, or given up and a later cycle billed much later (reactivation).
      cycleStart += wasPaid ? plan.period : cycle.skip * plan.period;
      lastCycle = k;
    }
    if (spec.cancel && spec.cancel.afterCycle >= lastCycle) {
      const c = spec.cancel;
      cancellations.push({ subscriptionId: id, planId: plan.planId, timestamp: cursor + c.gap, forced: c.forced, transactionStatus: c.status, transactionHash: `0x${id}-c` });
    }
  });
  return { billings, cancellations };
}

/** Records in any order with any signals: ties, duplicates, billings after cancellations, late payments of old cycles, a subscription whose terms change. */
export const chaosArb = fc
  .record({
    billings: fc.array(
      fc.record({
        sub: fc.integer({ min: 0, max: 5 }),
        plan: fc.integer({ min: 0, max: PLANS.length - 1 }),
        timestamp: fc.integer({ min: T0 - 10 * DAY, max: T0 + 200 * DAY }),
        cycleOffset: fc.integer({ min: -60 * DAY, max: 30 * DAY }),
        success: fc.constantFrom(0, 1, 1, 1),
        status: fc.constantFrom('confirmed', 'confirmed', 'pending', 'failed'),
      }),
      { maxLength: 60 },
    ),
    cancellations: fc.array(
      fc.record({ sub: fc.integer({ min: 0, max: 5 }), timestamp: fc.integer({ min: T0, max: T0 + 200 * DAY }), forced: fc.boolean(), status: fc.constantFrom('confirmed', 'pending', 'failed') }),
      { maxLength: 6 },
    ),
  })
  .map(({ billings, cancellations }): Records => ({
    billings: billings.map((b, i) => {
      // Subscription c5 breaks the contract: its billings name any plan, token and amount.
      const plan = PLANS[b.sub === 5 ? b.plan : b.sub % PLANS.length];
      // Cycles on a coarse grid so that several billings name the same cycle.
      const cycleStart = b.timestamp + b.cycleOffset - ((b.timestamp + b.cycleOffset) % (5 * DAY));
      return { subscriptionId: `c${b.sub}`, planId: plan.planId, token: plan.token, amount: plan.amount, timestamp: b.timestamp, cycleStart, cycleEnd: cycleStart + plan.period - 1, success: b.success, transactionStatus: b.status, transactionHash: `0xb${i}` };
    }),
    cancellations: cancellations.map((c, i) => ({ subscriptionId: `c${c.sub}`, planId: PLANS[c.sub % PLANS.length].planId, timestamp: c.timestamp, forced: c.forced, transactionStatus: c.status, transactionHash: `0xc${i}` })),
  }));

/** The instants at which a state can change, and a second either side. */
export function edges(r: Records, grace: number): number[] {
  const out = new Set<number>();
  const around = (t: number) => [t - 1, t, t + 1].forEach((x) => out.add(x));
  for (const b of r.billings) {
    around(b.timestamp);
    around(b.cycleEnd);
    around(b.cycleEnd + grace);
  }
  for (const c of r.cancellations) around(c.timestamp);
  return [...out].sort((a, b) => a - b);
}

export const every = (step: number, from: number, to: number) => Array.from({ length: Math.ceil((to - from) / step) }, (_, i) => from + i * step);


/** A small world where every second can be simulated: periods of seconds, a grace of 10 s, records in any order with any signals. */
const TINY_PLANS = [
  { planId: 't5', token: 'USDT', amount: '5', period: 5 },
  { planId: 't13', token: 'USDT', amount: '1.3', period: 13 },
  { planId: 't30', token: 'EIGHT', amount: '30', period: 30 },
];
export const TINY_GRACE = 10;
export const tinyArb = fc
  .record({
    billings: fc.array(
      fc.record({
        sub: fc.integer({ min: 0, max: 4 }),
        timestamp: fc.integer({ min: 0, max: 300 }),
        cycleOffset: fc.integer({ min: -40, max: 20 }),
        success: fc.constantFrom(0, 1, 1, 1),
        status: fc.constantFrom('confirmed', 'confirmed', 'confirmed', 'pending', 'failed'),
      }),
      { maxLength: 30 },
    ),
    cancellations: fc.array(
      fc.record({ sub: fc.integer({ min: 0, max: 4 }), timestamp: fc.integer({ min: 0, max: 300 }), forced: fc.boolean(), status: fc.constantFrom('confirmed', 'confirmed', 'pending') }),
      { maxLength: 4 },
    ),
    cuts: fc.uniqueArray(fc.integer({ min: 0, max: 360 }), { minLength: 2, maxLength: 12 }),
  })
  .map(({ billings, cancellations, cuts }) => {
    const records: Records = {
      billings: billings.map((b, i) => {
        const plan = TINY_PLANS[b.sub % TINY_PLANS.length];
        const cycleStart = b.timestamp + b.cycleOffset;
        return { subscriptionId: `t${b.sub}`, planId: plan.planId, token: plan.token, amount: plan.amount, timestamp: b.timestamp, cycleStart, cycleEnd: cycleStart + plan.period - 1, success: b.success, transactionStatus: b.status, transactionHash: `0xt${i}` };
      }),
      cancellations: cancellations.map((c, i) => ({ subscriptionId: `t${c.sub}`, planId: TINY_PLANS[c.sub % TINY_PLANS.length].planId, timestamp: c.timestamp, forced: c.forced, transactionStatus: c.status, transactionHash: `0xtc${i}` })),
    };
    const points = [...cuts].sort((a, b) => a - b);
    return { records, intervals: points.slice(1).map((to, i) => ({ from: points[i], to })), at: points.at(-1)! };
  });

/** A rate in force from `since` on (until the next one of its token), as tests hand it to the engine and to the oracle alike. */
export interface PlantedRate {
  num: bigint;
  den: bigint;
  times: string;
  over: string;
  since: number;
}

/** Rates that change: at drawn instants, and at (and a second either side of) drawn cycleStarts of the records. */
export const ratesArb = fc.record({
  between: fc.array(fc.integer({ min: T0 - 200 * DAY, max: END + 100 * DAY }), { maxLength: 30 }),
  atCycles: fc.array(fc.tuple(fc.nat(), fc.constantFrom(-1, 0, 0, 1)), { minLength: 5, maxLength: 40 }),
  values: fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.nat(99_999_999), fc.integer({ min: 0, max: 8 })), { minLength: 1, maxLength: 80 }),
  // Some tokens cross through another rate: 1 ÷ 1.0830, ÷ 3 (no finite decimal).
  over: fc.constantFrom('1', '1', '1.083', '3', '0.9173'),
});
export type RatesDraw = typeof ratesArb extends fc.Arbitrary<infer U> ? U : never;

/** A decimal string as an exact fraction, written here apart from the engine's reader. */
function fraction(text: string): { num: bigint; den: bigint } {
  const [whole, part = ''] = text.split('.');
  return { num: BigInt(whole + part), den: 10n ** BigInt(part.length) };
}

/**
 * Each token's rates as a step function from a draw: the first from the beginning of
 * time, then one from each change point; (token, t) → the latest at or before t. The
 * same object per step, so rows that carry a rate compare equal on both sides.
 */
export function plantRates(r: Records, draw: RatesDraw): (token: string, t: number) => PlantedRate {
  const cycles = [...new Set(r.billings.map((b) => b.cycleStart))];
  const points = [...new Set([...draw.between, ...(cycles.length > 0 ? draw.atCycles.map(([i, shift]) => cycles[i % cycles.length] + shift) : [])])].sort((a, b) => a - b);
  const tokens = [...new Set(r.billings.map((b) => b.token))].sort();
  let v = 0;
  const next = () => {
    const [whole, part, places] = draw.values[v++ % draw.values.length];
    const times = places === 0 ? String(whole + 1) : `${whole}.${String(part).padStart(8, '0').slice(0, places)}`.replace(/^0\.0+$/, '0.5');
    return times;
  };
  const steps = new Map<string, PlantedRate[]>();
  tokens.forEach((token, k) => {
    const over = k % 2 === 0 ? draw.over : '1';
    const make = (since: number): PlantedRate => {
      const times = next();
      const a = fraction(times);
      const b = fraction(over);
      return { num: a.num * b.den, den: a.den * b.num, times, over, since };
    };
    // Each token its own share of the change points, so tokens move at different instants.
    steps.set(token, [make(-Infinity), ...points.filter((_, i) => i % tokens.length === k || i % 3 === 0).map(make)]);
  });
  return (token, t) => {
    const list = steps.get(token)!;
    let lo = 0;
    let hi = list.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (list[mid].since <= t) lo = mid;
      else hi = mid - 1;
    }
    return list[lo];
  };
}
