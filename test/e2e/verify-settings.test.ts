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

  it('a URL that may hold a key over plain http to another host: exit 2, nothing stored or sent; a bare host or a loopback one is taken', async () => {
    // Mutant killed: checkRpcUrl without the http rule (the key would travel in clear text).
    const own = tempDir();
    for (const url of ['http://rpc.example.net/v3/abcdef0123456789', 'http://rpc.example.net/?apikey=abcdef0123456789', 'http://user:abcdef0123456789@rpc.example.net']) {
      const r = await payrec(emu, ['config', 'set', 'rpc', url], { env: { PAYREC_CONFIG_DIR: own } });
      expect(r.stderr).toBe(
        'error: refusing to send config set rpc "http://rpc.example.net/****" over plain http to rpc.example.net: its path, query or user part may hold a provider\'s key\n' +
          'hint: use https://, or http:// only for a node on this machine (a loopback address) or a URL with nothing after the host\n',
      );
      expect(r.exitCode).toBe(2);
    }
    emu.clearLog();
    const flag = await payrec(emu, ['ot', 'transfers', '--verify', '--rpc', 'http://192.0.2.7:8545/v3/abcdef0123456789'], { env: { PAYREC_CONFIG_DIR: own } });
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toMatch(/^error: refusing to send --rpc "http:\/\/192\.0\.2\.7:8545\/\*\*\*\*" over plain http/);
    expect(emu.requests).toEqual([]);
    for (const url of ['http://192.0.2.7:8545', 'http://127.0.0.1:8545/v3/abcdef0123456789', 'https://rpc.example.net/v3/abcdef0123456789']) {
      expect((await payrec(emu, ['config', 'set', 'rpc', url], { env: { PAYREC_CONFIG_DIR: own } })).exitCode, url).toBe(0);
    }
  });

  it('a node that redirects: exit 6 naming the redirect, nothing sent to where it points', async () => {
    // Mutant killed: the RPC client following redirects (a 307 made payrec POST its calls to the API host and read its answer).
    const target = await rpcNode({ chainId: 56, head: 100 });
    const redirecting = await rpcNode({ chainId: 56, head: 100 }, { http: () => ({ status: 307, headers: { location: target.url }, body: '' }) });
    try {
      const r = await payrec(emu, ['ot', 'transfers', '--verify', '--rpc', redirecting.url, '--retries', '0'], { env: { PAYREC_CONFIG_DIR: tempDir() } });
      expect(r.stderr).toBe(
        "error: the chain's node sent a redirect (HTTP 307) for eth_chainId, not followed: payrec sends a node's calls only to the URL given\n" +
          'hint: check the node (--rpc, PAYREC_RPC_URL or payrec config set rpc), or try another one\n',
      );
      expect(r.exitCode).toBe(6);
      expect(r.stdout).toBe('');
      expect(redirecting.requests.length).toBe(1);
      expect(target.requests).toEqual([]);
    } finally {
      await Promise.all([target.close(), redirecting.close()]);
    }
  });

  it('another chain\'s node whose URL names that chain: the hint says --chain ethereum, the key beside it masked', async () => {
    const KEY = '0a1b2c3d4e5f60718293a4b5';
    const other = await rpcNode({ chainId: 1, head: 100 }, { path: `/ethereum/${KEY}` });
    try {
      const r = await payrec(emu, ['ot', 'transfers', '--verify', '--rpc', other.url], { env: { PAYREC_CONFIG_DIR: tempDir() } });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(
        `error: the chain's node (http://${new URL(other.url).host}/****) serves chain id 1 (ethereum), not bsc (56): nothing was verified\n` +
          'hint: give the RPC URL of a bsc node (--rpc, PAYREC_RPC_URL or payrec config set rpc), or --chain ethereum\n',
      );
    } finally {
      await other.close();
    }
  });
});
