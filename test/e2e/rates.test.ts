import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulator, payrec, tempDir } from './helpers.js';
import type { Emulator } from '../../src/emulator/index.js';

// `payrec rates …` end to end, against the emulator's chain. Expected figures come from
// each feed's rounds as GET /_emulator/chain/feeds lists them (the ground truth), with
// BigInt arithmetic written here: never from payrec's own output.

interface Round { roundId: string; answer: string; updatedAt: number }
interface Phase { phaseId: number; decimals: number; rounds: Round[] }
interface Feed { address: string; pair: string; tokens: string[]; description: string; phases: Phase[] }

let emu: Emulator;
const truth: Record<string, Feed[]> = {};
const env = { PAYREC_EMULATOR_NOW: '2026-01-01T00:00:00Z' };

beforeAll(async () => {
  emu = await emulator();
  for (const chain of ['bsc', 'ethereum', 'polygon']) truth[chain] = ((await (await fetch(`${emu.url}/_emulator/chain/feeds?chain=${chain}`)).json()) as { feeds: Feed[] }).feeds;
});
afterAll(async () => {
  await emu?.close();
});

const run = (args: string[], chain = 'bsc') => payrec(emu, ['--chain', chain, ...args], { chain, env: { ...env, PAYREC_RPC_URL: emu.rpcUrl(chain) } });

/** answer ÷ 10^decimals as plain decimal text, by BigInt: every digit, no padding zeros. */
function decimal(answer: string, decimals: number): string {
  const a = BigInt(answer);
  const s = (a < 0n ? -a : a).toString().padStart(decimals + 1, '0');
  const text = `${s.slice(0, s.length - decimals)}.${s.slice(s.length - decimals)}`.replace(/0+$/, '').replace(/\.$/, '');
  return a < 0n ? `-${text}` : text;
}
const iso = (t: number) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
const feedOf = (chain: string, pair: string) => truth[chain].find((f) => f.pair === pair)!;
/** Every round of a feed in order, with its phase's decimals. */
const roundsOf = (f: Feed) => f.phases.flatMap((p) => p.rounds.map((r) => ({ ...r, decimals: p.decimals })));

describe('payrec rates feeds', () => {
  it('shows each feed of the chain checked and its latest round, as the chain has it', async () => {
    const r = await run(['rates', 'feeds', '-f', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, any>[];
    for (const f of truth.bsc) {
      const last = roundsOf(f).at(-1)!;
      for (const token of f.tokens) {
        const row = rows.find((x) => x.token === token)!;
        expect(row).toMatchObject({ pair: f.pair, feed: f.address.toLowerCase(), status: 'ok', description: f.pair, decimals: 8, phase: f.phases.at(-1)!.phaseId, round: last.roundId, rate: decimal(last.answer, last.decimals), updatedAt: last.updatedAt });
        // BUSD / USD was retired 90 days before the anchor: its latest round is that old.
        if (f.pair === 'BUSD / USD') expect(row.problem).toMatch(/^its latest round is 9\d d \d+ h old: a stale or retired feed$/);
        else expect(row.problem).toBe('');
      }
    }
    expect(rows.find((x) => x.token === '8PAY')).toMatchObject({ feed: null, status: 'no feed', problem: 'no Chainlink feed of 8PAY on bsc: its rates come from a rates file (--rates)' });
  });

  it('says which feed answers as another pair (polygon\'s MATIC / USD proxy is POL / USD)', async () => {
    const r = await run(['rates', 'feeds', '-f', 'json'], 'polygon');
    expect(r.exitCode).toBe(0);
    const matic = (JSON.parse(r.stdout) as Record<string, any>[]).find((x) => x.token === 'MATIC')!;
    const address = feedOf('polygon', 'MATIC / USD').address.toLowerCase();
    expect(matic).toMatchObject({ feed: address, status: 'refused', description: 'POL / USD', decimals: 8, round: null, problem: `the feed at ${address} describes itself as "POL / USD", not "MATIC / USD"` });
  });

  it('needs a node: exit 2 saying how to set one', async () => {
    const r = await payrec(emu, ['rates', 'feeds'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: reading Chainlink's feeds needs a bsc JSON-RPC node: none is set\n/);
  });
});

describe('payrec rates check', () => {
  const usdt = () => feedOf('bsc', 'USDT / USD');
  const bnb = () => feedOf('bsc', 'BNB / USD');
  /** A rates-file line for a round, as payrec rates -f csv writes one. */
  const line = (f: Feed, r: Round & { decimals: number }, token: string, chain = 'bsc') => `${iso(r.updatedAt)},${chain},${token},USD,${decimal(r.answer, r.decimals)},chainlink:${chain}:${f.address.toLowerCase()}:round=${r.roundId}`;

  function honest() {
    const u = roundsOf(usdt());
    const b = roundsOf(bnb());
    const phase1 = bnb().phases[0].rounds.length;
    // A round in the middle, the last of BNB's old phase (18 decimals; the next is phase 2's first), USDT's latest.
    const picks = [
      { feed: usdt(), round: u[100], next: u[101], token: 'USDT' },
      { feed: bnb(), round: b[phase1 - 1], next: b[phase1], token: 'BNB' },
      { feed: usdt(), round: u.at(-1)!, next: undefined, token: 'USDT' },
    ];
    expect(b[phase1 - 1].decimals).toBe(18);
    const lines = ['time,chain,token,currency,rate,source', ...picks.map((p) => line(p.feed, p.round, p.token)), '2025-12-01,bsc,8PAY,USD,0.0512,OTC desk'];
    return { picks, lines };
  }
  const write = (lines: string[]) => {
    const file = join(tempDir(), 'rates.csv');
    writeFileSync(file, lines.join('\n') + '\n');
    return file;
  };

  it('finds every rate of an honest file the same, each valid until the next round (across a phase change), the latest until now', async () => {
    const { picks, lines } = honest();
    const r = await run(['rates', 'check', write(lines), '-f', 'json']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("1 row is not a Chainlink rate (a team's rate, a peg): nothing on chain to check\n");
    const rows = JSON.parse(r.stdout) as Record<string, any>[];
    expect(rows).toEqual(
      picks.map((p, i) => ({ line: i + 2, token: p.token, currency: 'USD', time: p.round.updatedAt, rate: decimal(p.round.answer, p.round.decimals), feed: p.feed.address.toLowerCase(), round: p.round.roundId, until: p.next?.updatedAt ?? null, verdict: 'same', problem: '' })),
    );
  });

  it('exits 9 naming the line of a rate changed by one unit in its last place', async () => {
    const { picks, lines } = honest();
    const p = picks[0];
    const right = decimal(p.round.answer, p.round.decimals);
    // One more in the last place: the answer + 1, at the same decimals.
    const wrong = decimal((BigInt(p.round.answer) + 1n).toString(), p.round.decimals);
    lines[1] = lines[1].replace(`,${right},`, `,${wrong},`);
    const r = await run(['rates', 'check', write(lines), '-f', 'csv']);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`1 rate differs from the chain: rates.csv:2: round ${p.round.roundId} answers ${right} (${p.round.answer} ÷ 10^8), not ${wrong}\n`);
    expect(r.stdout.split('\n')[1]).toMatch(/^2,USDT,USD,.*,differs,/);
  });

  it('exits 9 when the round named was not the one in force at the row\'s time, or was written at another', async () => {
    const { picks, lines } = honest();
    const p = picks[0];
    // The row claims round 100 at the time round 101 was written: 101 had replaced it.
    lines[1] = lines[1].replace(/^[^,]+,/, `${iso(p.next!.updatedAt)},`);
    // And the BNB row one second after its round was written.
    lines[2] = lines[2].replace(/^[^,]+,/, `${iso(picks[1].round.updatedAt + 1)},`);
    const r = await run(['rates', 'check', write(lines), '-f', 'json']);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`2 rates differ from the chain: rates.csv:2: round ${p.round.roundId} was not in force at ${iso(p.next!.updatedAt)}: round ${p.next!.roundId} replaced it at ${iso(p.next!.updatedAt)}; and rates.csv:3\n`);
    const rows = JSON.parse(r.stdout) as Record<string, any>[];
    expect(rows[1].problem).toBe(`round ${picks[1].round.roundId} was written at ${iso(picks[1].round.updatedAt)}, not at ${iso(picks[1].round.updatedAt + 1)}`);
    expect(rows.map((x) => x.verdict)).toEqual(['differs', 'differs', 'same']);
  });

  it('refuses a round the feed does not have, a feed of another token, and says which rows another chain\'s node must check', async () => {
    const { lines } = honest();
    const u = usdt();
    const eth = feedOf('ethereum', 'ETH / USD');
    const ethRound = roundsOf(eth)[10];
    lines.push(`2025-12-01T00:00:00Z,bsc,USDT,USD,1,chainlink:bsc:${u.address.toLowerCase()}:round=${(2n << 64n) + 999_999n}`);
    lines.push(line(u, roundsOf(u)[5], 'BNB'));
    lines.push(line(eth, ethRound, 'ETH', 'ethereum'));
    const r = await run(['rates', 'check', write(lines), '-f', 'json']);
    expect(r.exitCode).toBe(9);
    const rows = JSON.parse(r.stdout) as Record<string, any>[];
    expect(rows.slice(3).map((x) => [x.line, x.verdict, x.problem])).toEqual([
      [6, 'differs', `round ${(2n << 64n) + 999_999n} is absent: it reverts or answers zeros`],
      [7, 'differs', `the feed at ${u.address.toLowerCase()} describes itself as "USDT / USD", not "BNB / USD"`],
      [8, 'not checked', 'a feed of ethereum: check it with --chain ethereum and a node of that chain'],
    ]);
    expect(r.stderr).toContain("1 Chainlink rate is of another chain's feeds, not checked: a feed of ethereum: check it with --chain ethereum and a node of that chain\n");
    // On ethereum's node that row is the same.
    const e = await run(['rates', 'check', write(['time,chain,token,currency,rate,source', line(eth, ethRound, 'ETH', 'ethereum')]), '-f', 'json'], 'ethereum');
    expect(e.exitCode).toBe(0);
    expect((JSON.parse(e.stdout) as Record<string, any>[])[0]).toMatchObject({ verdict: 'same', until: roundsOf(eth)[11].updatedAt });
  });

  it('reads the file before any request: a malformed line is exit 2 naming it', async () => {
    const file = write(['time,chain,token,currency,rate,source', '2025-12-01T10:00:00,bsc,BNB,USD,1,x']);
    emu.clearLog();
    const r = await run(['rates', 'check', file]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: rates\.csv:2: time "2025-12-01T10:00:00" has no zone/);
    expect(emu.requests).toEqual([]);
  });
});
