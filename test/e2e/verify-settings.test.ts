import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emulator, payrec, tempDir } from './helpers.js';
import { rpcNode, type RpcNode } from '../unit/rpc-node.js';
import type { Emulator } from '../../src/emulator/index.js';
import * as f from '../unit/chain-fixtures.js';

// The chain's node as a setting: stored per profile and chain by `config set rpc`, used
// by --verify without a flag, shown masked by config get, config list and doctor (a
// provider's key lives in the URL), and checked by doctor (chain id, head age).

const KEY_PART = 'pr0viderKey0123456789';
let emu: Emulator;
let node: RpcNode;
let config: string;

beforeAll(async () => {
  emu = await emulator({ records: 10 });
  // A node with no receipts: every record is missing or pending, which is all this needs.
  node = await rpcNode({ chainId: 56, head: 100, blocks: new Map([[100, f.block(100, Math.floor(Date.now() / 1000) - 3)]]) }, { path: `/v3/${KEY_PART}` });
  config = tempDir();
});

afterAll(async () => {
  await Promise.all([emu?.close(), node?.close()]);
});

const run = (args: string[]) => payrec(emu, args, { env: { PAYREC_CONFIG_DIR: config } });

describe('payrec config set rpc', () => {
  it('stores the URL for the chain, and says it masked', async () => {
    const r = await run(['config', 'set', 'rpc', node.url]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`Set rpc of profile default for bsc to ${new URL(node.url).origin}/****\n`);
    expect(JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles.default.rpc).toEqual({ bsc: node.url });
  });

  it('config get and config list show it masked', async () => {
    const get = await run(['config', 'get', 'rpc']);
    expect(get.stdout).toBe(`${new URL(node.url).origin}/****\n`);
    const list = await run(['config', 'list']);
    expect(list.stdout).toMatch(new RegExp(`^rpc\\t${new URL(node.url).origin.replaceAll('.', '\\.')}/\\*\\*\\*\\*\\t\\(profile\\)$`, 'm'));
    expect(list.stdout + list.stderr).not.toContain(KEY_PART);
  });

  it('--verify uses it with no flag, even when variables give the key', async () => {
    const r = await run(['wallet-to-wallet', 'transfers', '--limit', '5', '--verify', '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const verdicts = (JSON.parse(r.stdout) as Record<string, unknown>[]).map((x) => x.verdict);
    expect(verdicts).toHaveLength(5);
    for (const v of verdicts) expect(['missing', 'pending']).toContain(v);
    expect(node.calls('eth_chainId').length).toBeGreaterThan(0);
  });

  it('another chain keeps its own node: polygon has none', async () => {
    const r = await payrec(emu, ['wallet-to-wallet', 'transfers', '--limit', '1', '--verify'], { env: { PAYREC_CONFIG_DIR: config }, chain: 'polygon' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/needs a polygon JSON-RPC node: none is set/);
  });

  it('doctor checks the node: its chain id and its head\'s age, the URL masked', async () => {
    const r = await run(['doctor', '-f', 'json']);
    const rows = JSON.parse(r.stdout) as { check: string; status: string; detail: string }[];
    expect(rows.find((x) => x.check === 'chain node')).toEqual({ check: 'chain node', status: 'ok', detail: expect.stringMatching(/\/\*\*\*\* serves bsc; head 100, \d+ s old$/) });
    expect(r.stdout).not.toContain(KEY_PART);
  });

  it('a URL that is not http(s): exit 2, nothing stored', async () => {
    const r = await run(['config', 'set', 'rpc', 'ftp://example.com/key']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/invalid config set rpc "ftp:\/\/example\.com\/\*\*\*\*"/);
    expect(JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles.default.rpc).toEqual({ bsc: node.url });
  });
});
