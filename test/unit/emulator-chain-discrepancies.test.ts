import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainDiscrepancy, Emulator } from '../../src/emulator/index.js';
import { NOW, start } from './emulator-helpers.js';

// Seeded discrepancies: every kind is present, each looks on chain as ONCHAIN.md §9 says
// a verifier tells it apart (read here over JSON-RPC, not from the emulator's objects),
// they are the same for the same seed and clock, and the API's records never change.

type Rec = Record<string, any>;

/** 8pay's contracts on bsc (ONCHAIN.md §3). */
const BSC_8PAY = [
  '0x3a6da478e5c7d2abc3856d49fd99e1bbdef7c5a3',
  '0x77a7540a9bb53fdd4ce759a531ba0296863a825c',
  '0x9cc66ed97e500b760500946af0ddb076f19d56c8',
  '0x89fd6db2fea9b01be5c33a0a56e3636820c292cd',
  '0x51d0c6f8562b21cb20e37afa71218799a6408f18',
  '0x8911d7b99716fdd7a39b5fc2f97077bd261319a4',
  '0x67341ae3f9d9fc1242dd51705a846cc138b5095f',
  '0x2df3cf8c1771f4a7c89f597b05547ce72849af71',
  '0xdc371651b4b2d5c31250f2c23ed566f1b4a5e8b8',
  '0xb655f311fcff2e0bd898a13e6412fe6bb6f617a3',
  '0x5ce851daccba1be5e7c98690dd506d6f162f4ebd',
];
const TRANSFER_SUCCESSFUL = '0x9b46a0da5f707b77c9f201c809b13b51a23d0021661ca2507170f77ae89bfebe';

async function rpc(emu: Emulator, method: string, params: unknown[], chain = 'bsc'): Promise<any> {
  const res = await fetch(emu.rpcUrl(chain), { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await res.json()) as Rec).result;
}

let emu: Emulator;
let listed: ChainDiscrepancy[];
beforeAll(async () => {
  emu = await start({ records: 250, seed: 1 });
  listed = emu.chain.discrepancies('bsc');
});
afterAll(() => emu.close());

const seededOf = (kind: string) => listed.filter((d) => d.seeded && d.kind === kind);

describe('seeded discrepancies', () => {
  it('every kind is present, on a few percent of the confirmed records, and only on confirmed ones', () => {
    const kinds = new Set(listed.filter((d) => d.seeded).map((d) => d.kind));
    expect([...kinds].sort()).toEqual(['mismatch', 'missing', 'reorged', 'reverted', 'spoofed']);
    let confirmed = 0;
    const statusOf = new Map<string, string>();
    for (const collection of new Set(listed.map((d) => d.collection))) {
      for (const r of emu.records('bsc', collection).records as Rec[]) {
        for (const x of r.receivers && !r.transactionHash ? r.receivers : [r]) {
          statusOf.set(x.transactionHash, x.transactionStatus);
          if (x.transactionStatus === 'confirmed') confirmed++;
        }
      }
    }
    const seeded = listed.filter((d) => d.seeded);
    expect(seeded.every((d) => statusOf.get(d.transactionHash) === 'confirmed')).toBe(true);
    const share = seeded.length / confirmed;
    expect(share).toBeGreaterThan(0.02);
    expect(share).toBeLessThan(0.07);
  });

  it('missing: no receipt and no transaction; reverted: status 0x0 and no logs, though the API says confirmed', async () => {
    for (const d of seededOf('missing').slice(0, 5)) {
      expect(await rpc(emu, 'eth_getTransactionReceipt', [d.transactionHash])).toBeNull();
      expect(await rpc(emu, 'eth_getTransactionByHash', [d.transactionHash])).toBeNull();
    }
    for (const d of seededOf('reverted').slice(0, 5)) {
      expect(await rpc(emu, 'eth_getTransactionReceipt', [d.transactionHash])).toMatchObject({ status: '0x0', logs: [] });
    }
  });

  it('spoofed: the 8pay events come from look-alike contracts (same first six and last four hex digits), none from 8pay', async () => {
    const spoofed = seededOf('spoofed').filter((d) => d.collection !== 'wallet-to-wallet/payments' && d.collection !== 'wallet-to-wallet/transfers');
    expect(spoofed.length).toBeGreaterThan(0);
    for (const d of spoofed.slice(0, 5)) {
      const receipt = await rpc(emu, 'eth_getTransactionReceipt', [d.transactionHash]);
      expect(receipt.status).toBe('0x1');
      expect(receipt.logs.length).toBeGreaterThan(0);
      expect(receipt.logs.some((l: Rec) => BSC_8PAY.includes(l.address))).toBe(false);
      const forged = receipt.logs.filter((l: Rec) => l.topics[0] === TRANSFER_SUCCESSFUL || !l.topics[0].startsWith('0xddf252ad'));
      for (const l of forged) {
        const real = BSC_8PAY.find((a) => a.slice(0, 8) === l.address.slice(0, 8) && a.slice(-4) === l.address.slice(-4));
        expect(real, `${l.address} looks like an 8pay contract`).toBeDefined();
      }
    }
  });

  it('reorged: the receipt names a block that is not the canonical one at its number', async () => {
    for (const d of seededOf('reorged').slice(0, 5)) {
      const receipt = await rpc(emu, 'eth_getTransactionReceipt', [d.transactionHash]);
      const block = await rpc(emu, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
      expect(block.hash).not.toBe(receipt.blockHash);
      expect(await rpc(emu, 'eth_getBlockByHash', [receipt.blockHash, false])).toBeNull();
      expect(await rpc(emu, 'eth_getBlockByHash', [block.hash, false])).toEqual(block);
    }
    // Not reorged: the receipt names the canonical block.
    const fine = (emu.records('bsc', 'one-time/transfers').records as Rec[]).find((r) => r.transactionStatus === 'confirmed' && !listed.some((d) => d.transactionHash === r.transactionHash && d.seeded))!;
    const receipt = await rpc(emu, 'eth_getTransactionReceipt', [fine.transactionHash]);
    expect((await rpc(emu, 'eth_getBlockByNumber', [receipt.blockNumber, false])).hash).toBe(receipt.blockHash);
  });

  it('mismatch: exactly one field differs by seeding, and the chain says what the list says', async () => {
    const mismatches = seededOf('mismatch');
    expect(mismatches.length).toBeGreaterThan(5);
    for (const d of mismatches) expect(d.differences.filter((x) => x.reason === 'seeded')).toHaveLength(1);
    // The seeded fields span the kinds of value: addresses, ids, amounts, numbers, flags, tokens.
    const fields = new Set(mismatches.map((d) => d.differences.find((x) => x.reason === 'seeded')!.field.replace(/\[\d+\]/, '[i]')));
    expect(fields.size).toBeGreaterThan(5);
    // An amount, sender or receiver seeded: a TransferSuccessful of the record says the listed chain value, none the API's.
    const legs = ['one-time/transfers', 'scheduled-payments/transfers', 'variable-recurring/transfers', 'on-demand/transfers'];
    const seededIn = (d: ChainDiscrepancy) => d.differences.find((x) => x.reason === 'seeded')!;
    const checked = mismatches.filter((d) => legs.includes(d.collection) && ['amount', 'receiver', 'sender'].includes(seededIn(d).field));
    expect(checked.length).toBeGreaterThan(0);
    const units = (v: string) => BigInt(v.replace('.', '') + '0'.repeat(18 - (v.split('.')[1] ?? '').length)).toString();
    for (const d of checked) {
      const x = seededIn(d);
      const receipt = await rpc(emu, 'eth_getTransactionReceipt', [d.transactionHash]);
      const at = { sender: 1, receiver: 2, amount: 3 }[x.field as 'amount'];
      const said = receipt.logs
        .filter((l: Rec) => l.topics[0] === TRANSFER_SUCCESSFUL)
        .map((l: Rec) => l.data.slice(2).match(/.{64}/g)[at] as string)
        .map((w: string) => (x.field === 'amount' ? BigInt(`0x${w}`).toString() : `0x${w.slice(24)}`));
      const form = (v: unknown) => (x.field === 'amount' ? units(String(v)) : String(v).toLowerCase());
      expect(said).toContain(form(x.chain));
      expect(said).not.toContain(form(x.api));
    }
  });

  it('nothing is listed that was not seeded: the API\'s fees and amounts are what the chain holds, on bsc, ethereum and polygon; sandbox lists only its USDC, a token 8pay\'s list lacks', () => {
    for (const chain of ['bsc', 'ethereum', 'polygon']) expect(emu.chain.discrepancies(chain).filter((d) => !d.seeded)).toEqual([]);
    const sandbox = emu.chain.discrepancies('sandbox').filter((d) => !d.seeded);
    expect(sandbox.length).toBeGreaterThan(0);
    expect(new Set(sandbox.flatMap((d) => d.differences.map((x) => `${x.field.replace(/\[\d+\]/, '[i]')} ${x.api} ${x.reason}`)))).toEqual(
      new Set(['token USDC token', 'inputToken USDC token', 'swaps[i].outputToken USDC token']),
    );
  });

  it('on ethereum, USDT and USDC have 6 decimals: amounts and fees have no more, and each fee is floor(amount × feePercentage / 10000) of its TransferSuccessful', async () => {
    const decimals = (token: string) => (token === 'USDT' || token === 'USDC' ? 6 : 18);
    const units = (value: string, d: number) => {
      const [whole, fraction = ''] = value.split('.');
      expect(fraction.length).toBeLessThanOrEqual(d);
      return BigInt(whole + fraction.padEnd(d, '0'));
    };
    const seeded = new Set(emu.chain.discrepancies('ethereum').map((d) => d.transactionHash));
    const percentages = new Set<bigint>();
    let sixes = 0;
    for (const collection of ['one-time/transfers', 'variable-recurring/transfers', 'on-demand/transfers']) {
      const records = (emu.records('ethereum', collection).records as Rec[]).filter((r) => r.transactionStatus === 'confirmed' && !seeded.has(r.transactionHash));
      const six = records.filter((r) => decimals(r.token) === 6).slice(0, 15);
      sixes += six.length;
      for (const r of [...six, ...records.filter((x) => decimals(x.token) === 18).slice(0, 10)]) {
        const d = decimals(r.token);
        const receipt = await rpc(emu, 'eth_getTransactionReceipt', [r.transactionHash], 'ethereum');
        const words = (receipt.logs as Rec[]).filter((l) => l.topics[0] === TRANSFER_SUCCESSFUL).map((l) => l.data.slice(2).match(/.{64}/g) as string[]);
        const own = words.find((w) => BigInt(`0x${w[3]}`) === units(r.amount, d))!;
        expect(own, r.transactionHash).toBeDefined();
        const feePercentage = BigInt(`0x${own[4]}`);
        percentages.add(feePercentage);
        if (collection === 'one-time/transfers') expect(feePercentage).toBe(100n);
        expect(units(r.fee, d)).toBe((units(r.amount, d) * feePercentage) / 10_000n);
      }
    }
    expect(sixes).toBeGreaterThan(0);
    // The base fee, and a plan admin's own fee somewhere.
    expect(percentages.has(100n)).toBe(true);
    expect(percentages.size).toBeGreaterThan(1);
  });
});

describe('determinism', () => {
  it('the same seed and clock give the same chain: receipts, blocks and discrepancies; another seed other discrepancies; the API records never change', async () => {
    const [a, b, c] = await Promise.all([start({ records: 250, seed: 1 }), start({ records: 250, seed: 1 }), start({ records: 250, seed: 2 })]);
    const plain = await start({ records: 250, seed: 1 });
    try {
      const hashes = (a.records('bsc', 'fixed-recurring/billings').records as Rec[]).slice(0, 40).map((r) => r.transactionHash);
      for (const hash of hashes) {
        expect(await rpc(b, 'eth_getTransactionReceipt', [hash])).toEqual(await rpc(a, 'eth_getTransactionReceipt', [hash]));
        expect(await rpc(b, 'eth_getTransactionByHash', [hash])).toEqual(await rpc(a, 'eth_getTransactionByHash', [hash]));
      }
      expect(b.chain.discrepancies('bsc')).toEqual(a.chain.discrepancies('bsc'));
      const seededA = a.chain.discrepancies('bsc').filter((d) => d.seeded).map((d) => d.transactionHash);
      const seededC = c.chain.discrepancies('bsc').filter((d) => d.seeded).map((d) => d.transactionHash);
      expect(seededC).not.toEqual(seededA);
      // The chain read or not, the API's records are the same.
      for (const collection of ['fixed-recurring/billings', 'one-time/payments', 'wallet-to-wallet/payments']) {
        expect(a.records('bsc', collection).records).toEqual(plain.records('bsc', collection).records);
      }
    } finally {
      await Promise.all([a.close(), b.close(), c.close(), plain.close()]);
    }
  });
});

describe('every record has its transaction', () => {
  it('on every chain, in every collection, records made at start and added later: a receipt for each mined record (none for a seeded missing one or a pending one), from 8pay contracts or tokens', async () => {
    const e = await start({ records: 60, seed: 3 });
    try {
      const collections = ['fixed-recurring/billings', 'fixed-recurring/cancellations', 'variable-recurring/cancellations', 'variable-recurring/cancellation-requests', 'variable-recurring/transfers', 'on-demand/transfers', 'one-time/payments', 'one-time/transfers', 'wallet-to-wallet/payments', 'wallet-to-wallet/transfers', 'scheduled-payments/transfers', 'dollar-cost-average/executions'];
      for (const chain of ['bsc', 'ethereum', 'polygon', 'sandbox']) {
        for (const collection of collections) {
          const added = await fetch(`${e.url}/_emulator/records`, { method: 'POST', headers: { authorization: `Bearer ${e.keyFor(chain)}` }, body: JSON.stringify({ chain, collection, count: 5, timestamp: NOW - 50 }) });
          expect(added.status).toBe(201);
        }
        const missing = new Set(e.chain.discrepancies(chain).filter((d) => d.kind === 'missing').map((d) => d.transactionHash));
        for (const collection of collections) {
          const units = (e.records(chain, collection).records as Rec[]).flatMap((r) => (r.transactionHash ? [r] : r.receivers));
          expect(units.length).toBeGreaterThan(5);
          const res = await fetch(e.rpcUrl(chain), { method: 'POST', body: JSON.stringify(units.map((u, id) => ({ jsonrpc: '2.0', id, method: 'eth_getTransactionReceipt', params: [u.transactionHash] }))) });
          expect(res.status).toBe(200);
          const answers = (await res.json()) as Rec[];
          answers.forEach((a, i) => {
            const u = units[i];
            expect(a.error, `${chain} ${collection} ${u.transactionHash}`).toBeUndefined();
            const mined = u.transactionStatus !== 'pending' && !missing.has(u.transactionHash);
            expect(a.result === null, `${chain} ${collection} ${u.transactionHash} ${u.transactionStatus}`).toBe(!mined);
          });
        }
      }
    } finally {
      await e.close();
    }
  });
});
