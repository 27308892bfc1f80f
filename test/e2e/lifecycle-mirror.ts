import { join } from 'node:path';
import { expect } from 'vitest';
import type { Emulator, SubscriptionFacts } from '../../src/emulator/index.js';
import { recordsOfFacts, type Records } from '../oracle/subscriptions.js';
import { payrec, tempDir } from './helpers.js';

/** A mirror of the fixed-recurring billings and cancellations of every plan of the emulator's bsc lifecycles, with the facts the oracles read. */
export interface LifecycleMirror {
  db: string;
  facts: SubscriptionFacts[];
  /** The same records as the brute-force oracle reads them (test/oracle/subscriptions.ts). */
  records: Records;
  /** The emulator's now: nothing is stamped at or after it. */
  now: number;
}

/** Syncs every plan (not only those short urls name) into a new mirror, quietly. */
export async function syncLifecycles(emu: Emulator): Promise<LifecycleMirror> {
  const truth = emu.subscriptions('bsc');
  const db = join(tempDir(), 'mirror.duckdb');
  const r = await payrec(emu, ['sync', 'fr/billings', 'fr/cancellations', ...truth.plans.flatMap((p) => ['--plan-id', p.planId]), '--db', db, '-q']);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return { db, facts: truth.subscriptions, records: recordsOfFacts(truth.subscriptions), now: truth.now };
}
