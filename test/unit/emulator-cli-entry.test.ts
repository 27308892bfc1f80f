import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/runtime/errors.js';
import { DOC_PLAN_ID } from '../../src/emulator/doc-examples.js';
import { runEmulatorStart, triggerEvent } from '../../src/emulator/cli-entry.js';

describe('emulator start and trigger, as the CLI runs them', () => {
  it('prints the URL, keys and an example, fires events, and stops on abort', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const stop = new AbortController();
    const running = runEmulatorStart({ port: 0, records: 10 }, out, stop.signal);
    await expect.poll(() => text).toContain('Press Ctrl-C');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)![1];
    for (const chain of ['bsc', 'ethereum', 'polygon', 'sandbox']) expect(text).toContain(`prk_demo_${chain}`);
    expect(text).toContain(`PAYREC_BASE_URL=${url} PAYREC_API_KEY=prk_demo_bsc payrec one-time transfers`);

    const fired = (await triggerEvent(url, 'prk_demo_bsc', { chain: 'bsc', event: 'Subscription', planId: DOC_PLAN_ID })) as { notification: { event: string } };
    expect(fired.notification.event).toBe('Subscription');
    await expect(triggerEvent(url, 'prk_demo_bsc', { chain: 'bsc', event: 'Nope', planId: DOC_PLAN_ID })).rejects.toBeInstanceOf(ApiError);
    await expect(triggerEvent(url, undefined, { chain: 'bsc', event: 'Subscription', planId: DOC_PLAN_ID })).rejects.toMatchObject({ status: 401 });

    stop.abort();
    await running;
    await expect(fetch(`${url}/_emulator/fixtures?chain=bsc`)).rejects.toThrow();
  });
});
