import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { BIN, emulator, payrec, program, tempDir } from './helpers.js';

// The progress line of --all exports: on stderr, only for a person at a terminal,
// never with --quiet, never in a pipe.

let emu: Emulator;
beforeAll(async () => (emu = await emulator({ records: 5000 })));
afterAll(() => emu.close());

const PROGRESS = /records · [\d,]+\/s|of [\d,]+ records|fetching/;

/** Runs payrec on a pseudo-terminal (util-linux `script`) sized 100×30; returns what the terminal showed. */
async function onTerminal(args: string[], target: Emulator = emu): Promise<{ screen: string; exitCode?: number }> {
  // An unsized pty reports 0 columns; a person's terminal has a size.
  const command = `stty cols 100 rows 30; exec node ${BIN} ${args.join(' ')}`;
  const r = await execa('script', ['-qec', command, '/dev/null'], {
    reject: false,
    stdin: 'ignore',
    extendEnv: false,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', NO_COLOR: '1', PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: target.url, PAYREC_API_KEY: target.keyFor('bsc') },
  });
  return { screen: r.stdout, exitCode: r.exitCode };
}

const script = program('script', 'bsdutils');
const why = script.note;
const onPty = script.skip ? test.concurrent.skip : test.concurrent;

describe('progress', () => {
  test.concurrent('piped: no progress text on stderr', async () => {
    const r = await payrec(emu, ['one-time', 'transfers', '--all', '--page-size', '100', '-f', 'jsonl']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(5000);
    expect(r.stderr).toBe('');
  });

  onPty(`on a terminal: records fetched of the total, a rate, an ETA${why}`, async () => {
    const { screen, exitCode } = await onTerminal(['one-time', 'transfers', '--all', '--page-size', '50', '--concurrency', '1', '--summary', '-f', 'json']);
    expect(exitCode).toBe(0);
    expect(screen).toMatch(/[\d,]+ of 5,000 records · [\d,]+\/s( · ETA \d+ s)?/);
    // The line is cleared at the end, and the summary is still whole after it.
    expect(screen).toMatch(/"count": 5000/);
  });

  onPty(`on a terminal with --quiet: no progress${why}`, async () => {
    const { screen, exitCode } = await onTerminal(['one-time', 'transfers', '--all', '--page-size', '50', '--concurrency', '1', '--summary', '-f', 'json', '--quiet']);
    expect(exitCode).toBe(0);
    expect(screen).toMatch(/"count": 5000/);
    expect(screen).not.toMatch(PROGRESS);
  });

  onPty(`payrec sync on a terminal: each list's records fetched of its total${why}`, async () => {
    const slow = await emulator({ records: 5000 });
    try {
      await fetch(`${slow.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ rate: 1, kinds: ['slow'], slowMs: 200 }) });
      const { screen, exitCode } = await onTerminal(['sync', 'ot/transfers', '--db', `${tempDir()}/m.duckdb`, '--concurrency', '1', '-f', 'json'], slow);
      expect(exitCode).toBe(0);
      expect(screen).toMatch(/one_time_transfers: [\d,]+ of 5,000 records · [\d,]+\/s/);
      expect(screen).toMatch(/"fetched":5000/);
    } finally {
      await slow.close();
    }
  });

  onPty(`on a terminal without --all: no progress line (one page is quick)${why}`, async () => {
    const { screen, exitCode } = await onTerminal(['one-time', 'transfers', '--limit', '5', '-f', 'jsonl']);
    expect(exitCode).toBe(0);
    expect(screen).not.toMatch(PROGRESS);
  });
});
