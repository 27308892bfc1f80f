import { describe, expect, it } from 'vitest';
import { parseListFlags } from '../../src/core/lists/list-flags.js';

// Windows on days that are not 24 hours long (issue 24, item 5), at pinned instants,
// with the expected bounds written out as UTC instants worked by hand from each zone's
// rules: Berlin (CET/CEST, 1 h shifts at 01:00 UTC), Santiago (clocks go back from
// 24:00 to 23:00 on the first Saturday of April; forward from 24:00 to 01:00 on the
// first Saturday of September) and Lord Howe (30-minute shifts at 02:00 local).

const window = (flags: Record<string, string>, nowIso: string, zone: string) => {
  const q = parseListFlags(flags, Date.parse(nowIso), false, zone);
  return { from: q.from, to: q.to };
};
const at = (iso: string) => Date.parse(iso) / 1000;

describe('--period yesterday is the calendar day before, not now − 86,400 s', () => {
  it('Berlin, 00:30 after the 23-hour spring-forward day (29 March 2026)', () => {
    // Now 2026-03-30 00:30 CEST = 2026-03-29T22:30Z; yesterday began 00:00 CET = 28T23:00Z, ended 00:00 CEST = 29T22:00Z.
    expect(window({ period: 'yesterday' }, '2026-03-29T22:30:00Z', 'Europe/Berlin')).toEqual({ from: at('2026-03-28T23:00:00Z'), to: at('2026-03-29T22:00:00Z') - 1 });
  });

  it('Berlin, 00:30 after the 25-hour day (25 October 2026)', () => {
    // Now 2026-10-26 00:30 CET = 25T23:30Z; yesterday: 00:00 CEST = 24T22:00Z to 00:00 CET = 25T23:00Z (25 hours).
    expect(window({ period: 'yesterday' }, '2026-10-25T23:30:00Z', 'Europe/Berlin')).toEqual({ from: at('2026-10-24T22:00:00Z'), to: at('2026-10-25T23:00:00Z') - 1 });
  });

  it('Lord Howe, 00:15 after its 23.5-hour day (4 October 2026, clocks 02:00 → 02:30)', () => {
    // Standard +10:30, summer +11:00. Now 2026-10-05 00:15 +11 = 4T13:15Z; yesterday: 00:00 +10:30 = 3T13:30Z to 00:00 +11 = 4T13:00Z.
    expect(window({ period: 'yesterday' }, '2026-10-04T13:15:00Z', 'Australia/Lord_Howe')).toEqual({ from: at('2026-10-03T13:30:00Z'), to: at('2026-10-04T13:00:00Z') - 1 });
  });
});

describe('a date-only --to includes that whole local day', () => {
  it('Santiago, the 25-hour 4 April 2026 ends at 24:00 of its second 23:00 hour (05T04:00Z), not at the first 23:59:59', () => {
    // 4 April 00:00 -03 = 03:00Z; the clock goes back at 24:00 -03 (05T03:00Z) to 23:00 -04; 5 April 00:00 -04 = 05T04:00Z.
    expect(window({ from: '2026-04-04', to: '2026-04-04' }, '2026-06-01T00:00:00Z', 'America/Santiago')).toEqual({ from: at('2026-04-04T03:00:00Z'), to: at('2026-04-05T04:00:00Z') - 1 });
  });

  it('Santiago, 5 September 2026 with its missing midnight: the 6th begins at 01:00 -03 (04:00Z)', () => {
    expect(window({ from: '2026-09-05', to: '2026-09-05' }, '2026-12-01T00:00:00Z', 'America/Santiago')).toEqual({ from: at('2026-09-05T04:00:00Z'), to: at('2026-09-06T04:00:00Z') - 1 });
  });
});

describe('--period today and this-month end now', () => {
  for (const [zone, now] of [
    ['Europe/Berlin', '2026-03-29T12:00:00Z'],
    ['America/Santiago', '2026-04-04T20:00:00Z'],
    ['Australia/Lord_Howe', '2026-10-04T03:00:00Z'],
  ] as const) {
    it(`${zone} at ${now}`, () => {
      expect(window({ period: 'today' }, now, zone).to).toBe(at(now));
      expect(window({ period: 'this-month' }, now, zone).to).toBe(at(now));
    });
  }
});
