import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator, SubscriptionTruth } from '../../src/emulator/index.js';
import { call, start, NOW } from './emulator-helpers.js';

// The emulator's fixed-recurring data are coherent subscription lifecycles (DESIGN.md
// "Subscriptions and revenue metrics"). Every rule is checked here on the records the API
// serves (the ground truth of the two collections), grouped by subscription with this
// test's own arithmetic, for several seeds, sizes and chains; the emulator's subscription
// facts are held against those records too.

type Rec = Record<string, any>;

const HOUR = 3600;
const DAY = 86_400;
const GRACE = 30 * DAY;
/** Every case of DESIGN's MRR: the mean month (1, 7, 14 days) and each month band. */
const PERIOD_DAYS = [1, 7, 14, 28, 30, 31, 60, 91, 182, 183, 365];
const DOC_PLAN_ID = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';

const isPaid = (b: Rec) => b.success === 1 && b.transactionStatus === 'confirmed';
const isFailed = (b: Rec) => b.success !== 1 || b.transactionStatus === 'failed';

interface Data {
  records: number;
  billings: Rec[];
  cancellations: Rec[];
  truth: SubscriptionTruth;
}

async function load(emu: Emulator, records: number, chain = 'bsc'): Promise<Data> {
  return {
    records,
    billings: emu.records(chain, 'fixed-recurring/billings').records,
    cancellations: emu.records(chain, 'fixed-recurring/cancellations').records,
    truth: emu.subscriptions(chain),
  };
}

function bySubscription(records: Rec[]): Map<string, Rec[]> {
  const out = new Map<string, Rec[]>();
  for (const r of records) out.set(r.subscriptionId, [...(out.get(r.subscriptionId) ?? []), r]);
  return out;
}

/** Every rule of one subscription's records; returns what kinds of story it tells. */
function checkSubscription(id: string, billings: Rec[], cancellation: Rec | undefined, period: number, now: number) {
  const seen = { reactivations: [] as number[], recovered: false, lapsed: false, pending: false, failedConfirmed: false, failedStatus: false };
  expect(billings.length, id).toBeGreaterThan(0);
  const first = billings[0];
  // The first billing is the subscribe: its cycle starts with it.
  expect(first.cycleStart, id).toBe(first.timestamp);
  let lastPaid: Rec | undefined;
  for (const [i, b] of billings.entries()) {
    const where = `${id} billing ${i}`;
    expect(b.timestamp, where).toBeLessThan(now);
    if (i > 0) expect(b.timestamp, where).toBeGreaterThanOrEqual(billings[i - 1].timestamp);
    // Inclusive cycleEnd, and every cycle on the subscription's anchored grid.
    expect(b.cycleEnd - b.cycleStart + 1, where).toBe(period);
    expect((b.cycleStart - first.cycleStart) % period, where).toBe(0);
    // Billed at its cycle's start or later, within that cycle.
    expect(b.timestamp, where).toBeGreaterThanOrEqual(b.cycleStart);
    expect(b.timestamp, where).toBeLessThanOrEqual(b.cycleEnd);
    if (b.transactionStatus === 'pending') {
      // Only in the last hour, and nothing after it.
      expect(b.timestamp, where).toBeGreaterThanOrEqual(now - HOUR);
      expect(i, where).toBe(billings.length - 1);
      expect(cancellation, where).toBeUndefined();
      seen.pending = true;
    }
    if (i === 0) {
      expect(isPaid(b) || b.transactionStatus === 'pending', `${where}: the subscribe is paid`).toBe(true);
      if (isPaid(b)) lastPaid = b;
      continue;
    }
    const paidThrough = lastPaid!.cycleEnd;
    if (isFailed(b)) {
      // A failed attempt names the cycle after the last paid one: unpaid so far.
      expect(b.cycleStart, where).toBe(lastPaid!.cycleStart + period);
      if (b.success === 0 && b.transactionStatus === 'confirmed') seen.failedConfirmed = true;
      if (b.transactionStatus === 'failed') seen.failedStatus = true;
    } else if (isPaid(b)) {
      // Anchored: a paid cycle is a whole number of periods after the last paid one, never the same.
      const k = (b.cycleStart - lastPaid!.cycleStart) / period;
      expect(Number.isInteger(k) && k >= 1, where).toBe(true);
      if (b.timestamp > paidThrough + GRACE) {
        // A reactivation: on the grid cycle holding its time, after the cycle that failed.
        seen.reactivations.push(b.timestamp);
        expect(b.timestamp - b.cycleStart, where).toBeLessThan(period);
      } else {
        expect(k, `${where}: a cycle within the grace is the next one`).toBe(1);
        if (isFailed(billings[i - 1]) && billings[i - 1].cycleStart === b.cycleStart) seen.recovered = true;
      }
      lastPaid = b;
    }
  }
  const last = billings[billings.length - 1];
  if (isFailed(last) && cancellation === undefined) seen.lapsed = true;
  if (cancellation) {
    expect(cancellation.timestamp, `${id}: never a billing after its cancellation`).toBeGreaterThan(last.timestamp);
    expect(cancellation.timestamp, id).toBeLessThan(now);
    if (cancellation.transactionStatus === 'pending') expect(cancellation.timestamp, id).toBeGreaterThanOrEqual(now - HOUR);
    else expect(cancellation.transactionStatus, id).toBe('confirmed');
  }
  return seen;
}

/** Checks every invariant of a data set; returns what it holds, for the presence checks. */
function checkAll({ records, billings, cancellations, truth }: Data) {
  const { now } = truth;
  expect(billings).toHaveLength(records);
  const plans = new Map(truth.plans.map((p) => [p.planId, p]));
  const facts = new Map(truth.subscriptions.map((s) => [s.subscriptionId, s]));
  const groups = bySubscription(billings);
  const cancelled = bySubscription(cancellations);
  // At most one cancellation per subscription, and only of subscriptions that exist.
  for (const [id, list] of cancelled) {
    expect(list, id).toHaveLength(1);
    expect(facts.has(id), id).toBe(true);
  }
  // The facts hold exactly the served records.
  expect(truth.subscriptions.flatMap((s) => s.billings).map((b) => b.transactionHash).sort()).toEqual(billings.map((b) => b.transactionHash).sort());
  const summary = { periods: new Set<number>(), reactivations: 0, recovered: 0, lapsed: 0, pending: 0, failedConfirmed: 0, failedStatus: 0, forced: 0, customer: 0, docPlan: 0 };
  for (const [id, list] of groups) {
    const f = facts.get(id)!;
    const plan = plans.get(f.planId)!;
    // The plan's terms, on every billing: they never change.
    expect({ token: f.token, amount: f.amount, period: f.period }, id).toEqual({ token: plan.token, amount: plan.amount, period: plan.period });
    for (const b of list) expect({ amount: b.amount, token: b.token }, id).toEqual({ amount: plan.amount, token: plan.token });
    expect(new Set(list.map((b) => b.receiver)).size, id).toBe(1);
    expect(f.billings, id).toEqual(list);
    const cancellation = cancelled.get(id)?.[0];
    const seen = checkSubscription(id, list, cancellation, plan.period, now);
    // The facts say the same as the records.
    expect(f.start, id).toBe(list.find(isPaid)?.timestamp ?? null);
    expect(f.cancelledAt, id).toBe(cancellation?.timestamp ?? null);
    expect(f.forced, id).toBe(cancellation?.forced ?? null);
    expect(f.reactivations, id).toEqual(seen.reactivations);
    if (cancellation && !cancellation.forced) expect(cancellation.triggeredBy, `${id}: the customer cancels`).toBe(f.subscriber);
    summary.periods.add(plan.period / DAY);
    summary.reactivations += seen.reactivations.length;
    for (const key of ['recovered', 'lapsed', 'pending', 'failedConfirmed', 'failedStatus'] as const) summary[key] += seen[key] ? 1 : 0;
    if (cancellation) summary[cancellation.forced ? 'forced' : 'customer']++;
    if (f.planId === DOC_PLAN_ID) summary.docPlan += list.length;
  }
  return summary;
}

/** Unix seconds of the first second of each UTC month in the year before `now`. */
function utcMonthStarts(now: number): number[] {
  const out: number[] = [];
  const from = now - 365 * DAY;
  const d = new Date(from * 1000);
  for (let y = d.getUTCFullYear(), m = d.getUTCMonth(); Date.UTC(y, m, 1) / 1000 < now; m++) if (Date.UTC(y, m, 1) / 1000 >= from) out.push(Date.UTC(y, m, 1) / 1000);
  return out;
}

const CASES = [
  { seed: 1, records: 250, chain: 'bsc' },
  { seed: 2, records: 250, chain: 'ethereum' },
  { seed: 7, records: 1000, chain: 'bsc' },
  { seed: 3, records: 5000, chain: 'polygon' },
];

describe.each(CASES)('lifecycles of seed $seed, $records billings, $chain', ({ seed, records, chain }) => {
  let emu: Emulator;
  let data: Data;
  beforeAll(async () => {
    emu = await start({ seed, records });
    data = await load(emu, records, chain);
  });
  afterAll(() => emu.close());

  it('holds every rule, and every kind of story is told', () => {
    const s = checkAll(data);
    expect([...s.periods].sort((a, b) => a - b)).toEqual(PERIOD_DAYS);
    expect(s.reactivations).toBeGreaterThan(0);
    expect(s.recovered).toBeGreaterThan(0);
    expect(s.lapsed).toBeGreaterThan(0);
    expect(s.pending).toBeGreaterThan(0);
    expect(s.failedConfirmed).toBeGreaterThan(0);
    expect(s.failedStatus).toBeGreaterThan(0);
    expect(s.forced).toBeGreaterThan(0);
    expect(s.customer).toBeGreaterThan(0);
    expect(s.docPlan).toBeGreaterThan(10);
  });

  it('has billings on the first second of every UTC month', () => {
    const stamps = new Set(data.billings.map((b) => b.timestamp));
    const starts = utcMonthStarts(NOW);
    expect(starts).toHaveLength(12);
    for (const t of starts) expect(stamps.has(t), new Date(t * 1000).toISOString()).toBe(true);
  });

  it('serves the facts over /_emulator/subscriptions, whole or of one plan or subscription', async () => {
    const whole = await call(emu, `/_emulator/subscriptions?chain=${chain}`, { key: null });
    expect(whole.status).toBe(200);
    expect(whole.body).toEqual(data.truth);
    const sub = data.truth.subscriptions[3];
    const one = await call(emu, `/_emulator/subscriptions?chain=${chain}&subscriptionId=${sub.subscriptionId.toUpperCase().replace('0X', '0x')}`, { key: null });
    expect(one.body.subscriptions).toEqual([sub]);
    const plan = await call(emu, `/_emulator/subscriptions?chain=${chain}&planId=${sub.planId}`, { key: null });
    expect(plan.body.subscriptions).toEqual(data.truth.subscriptions.filter((s) => s.planId === sub.planId));
    expect((await call(emu, '/_emulator/subscriptions', { key: null })).status).toBe(400);
    expect((await call(emu, '/_emulator/subscriptions?chain=mars', { key: null })).status).toBe(404);
  });
});

describe('lifecycles, all sizes', () => {
  it('the same seed gives the same data, another seed other data; no records, no subscriptions', async () => {
    const [a, b, c, empty] = await Promise.all([start({ seed: 5, records: 300 }), start({ seed: 5, records: 300 }), start({ seed: 6, records: 300 }), start({ records: 0 })]);
    try {
      expect(a.records('bsc', 'fixed-recurring/billings').records).toEqual(b.records('bsc', 'fixed-recurring/billings').records);
      expect(a.subscriptions('bsc')).toEqual(b.subscriptions('bsc'));
      expect(a.subscriptions('bsc').subscriptions[0]).not.toEqual(c.subscriptions('bsc').subscriptions[0]);
      expect(empty.subscriptions('bsc').subscriptions).toEqual([]);
      expect(empty.records('bsc', 'fixed-recurring/cancellations').records).toEqual([]);
      // Plans and their terms exist without data: the documentation's plan first.
      expect(empty.subscriptions('bsc').plans.map((p) => p.period / DAY)).toEqual([30, 7, 365, 91, 31, 1, 14, 28, 182, 183, 60]);
      expect(empty.fixtures('bsc').plans['fixed-recurring'][0]).toBe(DOC_PLAN_ID);
    } finally {
      await Promise.all([a, b, c, empty].map((e) => e.close()));
    }
  });

  it('billings and cancellations added later (live traffic, POST /_emulator/records) stay coherent', async () => {
    const emu = await start({ records: 400 });
    try {
      // Stamped after the data, hours apart, as traffic would; cancellations in between.
      for (let step = 0; step < 60; step++) {
        const timestamp = NOW + step * 6 * HOUR;
        const collection = step % 4 === 3 ? 'fixed-recurring/cancellations' : 'fixed-recurring/billings';
        const r = await call(emu, '/_emulator/records', { method: 'POST', body: { chain: 'bsc', collection, count: 5, timestamp } });
        expect(r.status).toBe(201);
      }
      const data = await load(emu, 0);
      const added = data.billings.filter((b) => b.timestamp >= NOW);
      expect(added).toHaveLength(225);
      const cancelled = bySubscription(data.cancellations);
      for (const [id, list] of cancelled) expect(list, id).toHaveLength(1);
      const facts = new Map(data.truth.subscriptions.map((s) => [s.subscriptionId, s]));
      let continued = 0;
      for (const [id, list] of bySubscription(data.billings)) {
        const f = facts.get(id)!;
        expect(f.billings.map((b) => b.transactionHash), id).toEqual(list.map((b) => b.transactionHash));
        const c = cancelled.get(id)?.[0];
        if (c) expect(c.timestamp, `${id}: never a billing after its cancellation`).toBeGreaterThan(list[list.length - 1].timestamp);
        const paid = list.filter(isPaid);
        for (let i = 1; i < paid.length; i++) {
          const k = (paid[i].cycleStart - paid[i - 1].cycleStart) / f.period;
          expect(Number.isInteger(k) && k >= 1, id).toBe(true);
          if (paid[i].timestamp <= paid[i - 1].cycleEnd + GRACE) expect(k, id).toBe(1);
        }
        for (const b of list) expect(b.cycleEnd - b.cycleStart + 1, id).toBe(f.period);
        if (list.some((b) => b.timestamp >= NOW) && list[0].timestamp < NOW) continued++;
      }
      // Some added billings continue existing subscriptions, not only new ones.
      expect(continued).toBeGreaterThan(0);
    } finally {
      await emu.close();
    }
  });
});
