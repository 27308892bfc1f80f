import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvRecords } from '../../src/values/csv-records.js';

// The rates file's fast path (lines split at commas) against csv-parse itself, with the
// rates file's options, on generated texts: every record, every cell and the line each
// ends on must be csv-parse's, whichever path reads the text. The alphabet mixes what
// the fast path takes (letters, digits, commas, spaces, line ends) with what must send a
// text to csv-parse (a quote, a tab, a lone \r, a no-break space, a BOM inside).

const OPTIONS = { bom: true, info: true, trim: true, skip_empty_lines: true, relax_column_count: true } as const;

function oracle(text: string): { record: string[]; line: number }[] | 'error' {
  try {
    return (parse(text, OPTIONS) as unknown as { record: string[]; info: { lines: number } }[]).map((r) => ({ record: r.record, line: r.info.lines }));
  } catch {
    return 'error';
  }
}

function fast(text: string): { record: string[]; line: number }[] | 'error' {
  try {
    return [...csvRecords(text)];
  } catch {
    return 'error';
  }
}

/** A deterministic generator (xorshift), so a failure names a seed that reproduces it. */
function generator(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

const PLAIN = ['a', 'B', '1', '.', ',', ',', ' ', ' ', '\n', '\n', '-', ':', '€'];
const ODD = ['"', '\t', '\r', '\u00a0', '\ufeff', '\f', '\u2028'];

function text(random: () => number, odd: boolean, crlf: boolean): string {
  const n = Math.floor(random() * 40);
  let out = random() < 0.2 ? '\ufeff' : '';
  for (let i = 0; i < n; i++) {
    const pool = odd && random() < 0.08 ? ODD : PLAIN;
    out += pool[Math.floor(random() * pool.length)];
  }
  return crlf ? out.replace(/\n/g, '\r\n') : out;
}

describe('csvRecords', () => {
  it('reads every generated text as csv-parse does (records, cells, lines)', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const random = generator(seed);
      const t = text(random, seed % 3 === 0, seed % 4 === 1);
      expect({ seed, records: fast(t) }).toEqual({ seed, records: oracle(t) });
    }
  });

  it('reads a rates file with \\n or \\r\\n line ends, spaces, empty and blank lines as csv-parse does', () => {
    const lines = ['time,chain,token,currency,rate,source', '', '2026-10-05 , bsc ,BNB,USD, 612.34 ,a', '   ', '*,*,USDT,USD,1,peg', ' , ', 'x'];
    for (const eol of ['\n', '\r\n']) {
      for (const t of [lines.join(eol), lines.join(eol) + eol, '\ufeff' + lines.join(eol) + eol + eol]) {
        const records = fast(t);
        expect(records).toEqual(oracle(t));
        expect(records).not.toBe('error');
      }
    }
    // Lines worked by hand: the header, the rows on 3 and 5, two empty cells on 6, x on 7 (2 and 4 are empty or blank).
    expect((fast(lines.join('\n')) as { line: number }[]).map((r) => r.line)).toEqual([1, 3, 5, 6, 7]);
  });

  it('leaves quoted and tab-separated texts to csv-parse, errors included', () => {
    const quoted = 'a,b\n"x,\ny",2\n';
    expect(fast(quoted)).toEqual([
      { record: ['a', 'b'], line: 1 },
      { record: ['x,\ny', '2'], line: 3 },
    ]);
    expect(fast('a,b\n"x,2\n')).toBe('error');
    expect(fast('a\t,b\n')).toEqual(oracle('a\t,b\n'));
  });
});
