import { describe, expect, it } from 'vitest';
import { payrec, suiteEmulators } from './helpers.js';

// short-urls update changes only what it is given (issue 23, item 8): --extra k=v keeps
// the other extras, --extra k= removes one. Checked
// against the emulator's stored short url, not payrec's echo of it.

const s = suiteEmulators();

const stored = (path: string) => s.emu.records('bsc', 'fixed-recurring/short-urls').records.find((r) => r.path === path) as { params: Record<string, unknown> };

describe('short-urls update', () => {
  it('--extra sets one key and keeps the others; key= removes one', async () => {
    const plan = s.fx.plans['fixed-recurring'][0];
    const created = await payrec(s.emu, ['fr', 'short-urls', 'create', '--name', 'Banner', '--plan-id', plan, '--success-url', 'https://shop.example/ok', '--extra', 'banner=BR69', '--extra', 'traffic=facebook', '-f', 'json']);
    expect(created.exitCode).toBe(0);
    const path = JSON.parse(created.stdout).path as string;

    expect((await payrec(s.emu, ['fr', 'short-urls', 'update', path, '--extra', 'traffic=instagram'])).exitCode).toBe(0);
    expect(stored(path).params.extra).toEqual({ banner: 'BR69', traffic: 'instagram' });

    expect((await payrec(s.emu, ['fr', 'short-urls', 'update', path, '--extra', 'banner=', '--extra', 'campaign=x'])).exitCode).toBe(0);
    expect(stored(path).params.extra).toEqual({ traffic: 'instagram', campaign: 'x' });

    // A redirect changed alone leaves the extras as they were.
    expect((await payrec(s.emu, ['fr', 'short-urls', 'update', path, '--success-url', 'https://shop.example/thanks'])).exitCode).toBe(0);
    expect(stored(path).params).toEqual({ callbackSuccess: 'https://shop.example/thanks', extra: { traffic: 'instagram', campaign: 'x' } });
  });
});
