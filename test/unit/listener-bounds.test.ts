import { mkdtempSync, readFileSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { contentDigest, ForwardedMemory, KEEP_MS, MAX_ENTRIES } from '../../src/listener/forwarded.js';
import { hostChecker } from '../../src/core/http/host-check.js';
import { differences, prototypeKey } from '../../src/listener/notification-check.js';
import { ANSWER_TTL_MS, BUDGET_BURST, BUDGET_PER_SECOND, LookupsBusy, MAX_IN_FLIGHT, StoredNotifications, type Stored } from '../../src/listener/lookups.js';

// The listener's pure bounds, with a clock of the test's own.

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

/** A lookup function that counts calls and resolves when told to. */
function fakeApi() {
  const calls: string[] = [];
  const waiting: ((s: Stored) => void)[] = [];
  return {
    calls,
    fetch: (id: string) => {
      calls.push(id);
      return new Promise<Stored>((resolve) => waiting.push(resolve));
    },
    answerAll: (s: Stored) => waiting.splice(0).forEach((r) => r(s)),
  };
}

describe('StoredNotifications', () => {
  test('concurrent gets of one id share one lookup; the answer is cached for ANSWER_TTL_MS', async () => {
    const c = clock();
    const api = fakeApi();
    const lookups = new StoredNotifications(api.fetch, c.now);
    const gets = [lookups.get('a'), lookups.get('a'), lookups.get('a')];
    api.answerAll({ id: 'a' });
    expect(await Promise.all(gets)).toEqual([{ id: 'a' }, { id: 'a' }, { id: 'a' }]);
    expect(await lookups.get('a')).toEqual({ id: 'a' });
    c.t += ANSWER_TTL_MS + 1;
    const later = lookups.get('a');
    api.answerAll(null);
    expect(await later).toBeNull();
    expect(api.calls).toEqual(['a', 'a']);
  });

  test('at most MAX_IN_FLIGHT lookups at once, and BUDGET_BURST then BUDGET_PER_SECOND new ones', async () => {
    const c = clock();
    const api = fakeApi();
    const lookups = new StoredNotifications(api.fetch, c.now);
    for (let i = 0; i < MAX_IN_FLIGHT; i++) void lookups.get(`x${i}`);
    expect(() => lookups.get('one-more')).toThrow(LookupsBusy);
    api.answerAll(null);
    await new Promise((r) => setImmediate(r));
    let started = MAX_IN_FLIGHT;
    for (;;) {
      try {
        void lookups.get(`y${started}`);
      } catch (err) {
        expect(err).toBeInstanceOf(LookupsBusy);
        break;
      }
      started++;
      api.answerAll(null);
      await new Promise((r) => setImmediate(r));
    }
    expect(started).toBe(BUDGET_BURST);
    c.t += 1000;
    for (let i = 0; i < BUDGET_PER_SECOND; i++) {
      void lookups.get(`z${i}`);
      api.answerAll(null);
      await new Promise((r) => setImmediate(r));
    }
    expect(() => lookups.get('z-more')).toThrow(LookupsBusy);
    expect(api.calls).toHaveLength(BUDGET_BURST + BUDGET_PER_SECOND);
  });

  test('a failed lookup is not cached', async () => {
    let n = 0;
    const lookups = new StoredNotifications(async () => {
      if (n++ === 0) throw new Error('down');
      return { ok: true };
    });
    await expect(lookups.get('a')).rejects.toThrow('down');
    expect(await lookups.get('a')).toEqual({ ok: true });
  });
});

describe('ForwardedMemory', () => {
  test('remembers each id with its content across a reopen, in a 0600 file', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'payrec-unit-')), 'payrec');
    const m = await ForwardedMemory.open(dir, 'http://app/hooks?token=secret');
    await m.record('a', contentDigest({ x: 1, y: [2] }));
    const again = await ForwardedMemory.open(dir, 'http://app/hooks?token=secret');
    expect(again.forwardedDigest('a')).toBe(contentDigest({ y: [2], x: 1 })); // key order does not matter
    expect(again.forwardedDigest('a')).not.toBe(contentDigest({ x: 2, y: [2] }));
    expect(again.forwardedDigest('b')).toBeUndefined();
    expect((await ForwardedMemory.open(dir, 'http://other/')).forwardedDigest('a')).toBeUndefined();
    expect(statSync(m.file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).join()).not.toContain('secret');
  });

  test('bounded: entries older than the retry window and beyond MAX_ENTRIES are dropped, the file compacted', async () => {
    const c = clock(Date.now());
    const dir = mkdtempSync(join(tmpdir(), 'payrec-unit-'));
    const m = await ForwardedMemory.open(dir, 'http://app/', c.now);
    const old = { id: 'old', digest: 'd', at: c.t - KEEP_MS - 1 };
    const lines = Array.from({ length: MAX_ENTRIES + 5 }, (_, i) => JSON.stringify({ id: `i${i}`, digest: 'd', at: c.t }));
    writeFileSync(m.file, [JSON.stringify(old), ...lines, '{"cut'].join('\n') + '\n');
    const reopened = await ForwardedMemory.open(dir, 'http://app/', c.now);
    expect(reopened.forwardedDigest('old')).toBeUndefined();
    expect(reopened.forwardedDigest('i0')).toBeUndefined(); // the oldest beyond the cap
    expect(reopened.forwardedDigest(`i${MAX_ENTRIES + 4}`)).toBe('d');
    expect(readFileSync(m.file, 'utf8').trim().split('\n')).toHaveLength(MAX_ENTRIES);
  });
});

describe('hostChecker', () => {
  test('the listening address and localhost on the listening port; nothing else', () => {
    const ok = hostChecker('127.0.0.1', 8788);
    expect(['127.0.0.1:8788', 'localhost:8788', 'LOCALHOST:8788', '[::1]:8788'].map(ok)).toEqual([true, true, true, true]);
    expect(['evil.example:8788', '127.0.0.1:8789', 'localhost', '', undefined, 'a:b:c'].map(ok)).toEqual([false, false, false, false, false, false]);
    const wildcard = hostChecker('0.0.0.0', 80);
    expect(['192.168.1.5', '192.168.1.5:80', 'rebind.example'].map(wildcard)).toEqual([true, true, false]);
  });
});

describe('differences and prototype keys', () => {
  const stored = { id: 'a', data: { amount: '1', tags: [{ k: 'v' }] } };
  test('only own properties are compared: "__proto__" in a received body is a difference, at the top and nested', () => {
    // Mutant killed: stored[k] read plainly (Object.prototype "matches" a received {}).
    const top = JSON.parse('{"id":"a","__proto__":{},"data":{"amount":"1","tags":[{"k":"v"}]}}');
    expect(differences(top, stored)).toEqual([{ field: '__proto__', received: {}, stored: undefined }]);
    const nested = JSON.parse('{"id":"a","data":{"__proto__":{},"amount":"1","tags":[{"k":"v","constructor":{}}]}}');
    expect(differences(nested, stored).map((d) => d.field)).toEqual(['data.__proto__', 'data.tags.0.constructor']);
    expect(differences(structuredClone(stored), stored)).toEqual([]);
  });

  test('prototypeKey names the first __proto__, constructor or prototype key, with its path', () => {
    expect(prototypeKey(JSON.parse('{"id":"a","data":{"x":[1,{"prototype":2}]}}'))).toBe('data.x.1.prototype');
    expect(prototypeKey(JSON.parse('{"__proto__":{}}'))).toBe('__proto__');
    expect(prototypeKey({ id: 'a', data: { constructors: 1, proto: 2 } })).toBeUndefined();
  });
});
