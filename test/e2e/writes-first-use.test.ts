import { describe, expect, it } from 'vitest';
import { payrec, suiteEmulators } from './helpers.js';

// Writes as a newcomer meets them (issue 23, items 6 and 7): a plan without a webhook
// is named as such, deletes can be run again (--ignore-missing), and --emulator says
// that its changes are forgotten when the command ends.

const s = suiteEmulators();
const plan = () => s.fx.plans['fixed-recurring'][1];

describe('a plan without a webhook, and deletes run again', () => {
  it('webhook get on a plan with none says the plan has no webhook (exit 4), not that the id is wrong', async () => {
    const r = await payrec(s.emu, ['fr', 'webhook', 'get', '--plan-id', plan()]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(`error: plan ${plan()} has no webhook`);
    expect(r.stderr).toContain(`hint: set one: payrec fr webhook set --plan-id ${plan()} URL`);
    expect(r.stderr).not.toContain('check the id');
  });

  it('webhook delete: gone after the first, exit 0 with --ignore-missing on the second, exit 4 without', async () => {
    const set = await payrec(s.emu, ['fr', 'webhook', 'set', '--plan-id', plan(), 'https://shop.example/hook']);
    expect(set.exitCode).toBe(0);
    const first = await payrec(s.emu, ['fr', 'webhook', 'delete', '--plan-id', plan(), '--yes', '--ignore-missing']);
    expect(first.exitCode).toBe(0);
    expect(first.stderr).not.toContain('nothing to delete');
    // The emulator no longer has it (its own answer, not payrec's note).
    const res = await fetch(`${s.emu.url}/v1/bsc/fixed-recurring/plans/${plan()}/webhook`, { headers: { authorization: `Bearer ${s.emu.keyFor('bsc')}` } });
    expect(res.status).toBe(404);
    const again = await payrec(s.emu, ['fr', 'webhook', 'delete', '--plan-id', plan(), '--yes', '--ignore-missing']);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain(`plan ${plan()} has no webhook: nothing to delete (--ignore-missing)`);
    const strict = await payrec(s.emu, ['fr', 'webhook', 'delete', '--plan-id', plan(), '--yes']);
    expect(strict.exitCode).toBe(4);
  });

  it('short url delete of a missing path: exit 0 with --ignore-missing, 4 without', async () => {
    const ok = await payrec(s.emu, ['fr', 'short-urls', 'delete', 'nosuch', '--yes', '--ignore-missing']);
    expect(ok.exitCode).toBe(0);
    expect(ok.stderr).toContain('short url nosuch was not found: nothing to delete (--ignore-missing)');
    expect((await payrec(s.emu, ['fr', 'short-urls', 'delete', 'nosuch', '--yes'])).exitCode).toBe(4);
  });
});

describe('--emulator says what it forgets', () => {
  it('a write under --emulator notes that the change ends with the command; against a running emulator it does not', async () => {
    const args = ['fr', 'short-urls', 'create', '--name', 'Banner', '--plan-id', plan(), '-f', 'json'];
    const demo = await payrec(undefined, ['--emulator', ...args]);
    expect(demo.exitCode).toBe(0);
    expect(demo.stderr).toMatch(/--emulator starts a fresh emulator for each command, so this change is gone when it ends; to keep changes, run payrec emulator start/);
    const kept = await payrec(s.emu, args);
    expect(kept.exitCode).toBe(0);
    expect(kept.stderr).not.toContain('--emulator');
  });
});
