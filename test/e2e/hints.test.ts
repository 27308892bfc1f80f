import { describe, expect, it } from 'vitest';
import { payrec, suiteEmulators } from './helpers.js';

// What a newcomer types from habit gets the spelling payrec uses (issue 23, item 16):
// exit 2, nothing sent, and a hint with the form that works.

const s = suiteEmulators();

describe('hints for habits from other tools', () => {
  const cases: [string[], string][] = [
    [['ot', 'transfers', '--json'], 'hint: formats are chosen with -f: -f json'],
    [['ot', 'transfers', '--csv'], 'hint: formats are chosen with -f: -f csv'],
    [['ot', 'transfers', '--from', 'yesterday'], 'hint: for a calendar period, use --period yesterday (instead of --from and --to)'],
    [['ot', 'transfers', '--to', 'Last-Month'], 'hint: for a calendar period, use --period last-month (instead of --from and --to)'],
  ];
  for (const [args, hint] of cases) {
    it(args.slice(2).join(' '), async () => {
      const r = await payrec(s.quiet, args);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(hint);
      expect(s.quiet.requests).toEqual([]);
    });
  }
});
