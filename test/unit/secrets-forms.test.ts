import { describe, expect, it } from 'vitest';
import { keepSecret, maskSecrets } from '../../src/core/runtime/secrets.js';

// The key in other clothes (issue 24, item 10): a server may echo it base64-encoded
// (Basic auth), percent-encoded (a query string), or cut (a log line that wrapped).

const KEY = 'prk_live_Zq8/x+Yt2Lm9Wp4Rs7Vn';
keepSecret(KEY);

describe('maskSecrets', () => {
  it('masks the key whole, leaving only its last four characters', () => {
    expect(maskSecrets(`Bearer ${KEY} refused`)).toBe('Bearer ****s7Vn refused');
  });
  it('masks its base64 (with and without padding), base64url and percent-encoded forms', () => {
    const b64 = Buffer.from(KEY).toString('base64');
    for (const form of [b64, b64.replace(/=+$/, ''), Buffer.from(KEY).toString('base64url'), encodeURIComponent(KEY)]) {
      const shown = maskSecrets(`auth=${form};`);
      expect(shown, form).toBe('auth=****;');
    }
  });
  it('masks any run of eight or more of its characters, but not seven', () => {
    expect(maskSecrets(`key was ${KEY.slice(3, 14)}… (cut)`)).toBe('key was ****… (cut)');
    expect(maskSecrets(`two halves: ${KEY.slice(0, 12)}\n${KEY.slice(12)}`)).toBe('two halves: ****\n****');
    expect(maskSecrets(`short: ${KEY.slice(5, 12)}`)).toBe(`short: ${KEY.slice(5, 12)}`);
  });
  it('leaves text without the key as it was', () => {
    expect(maskSecrets('GET /v1/bsc/one-time/transfers: 500 Internal error')).toBe('GET /v1/bsc/one-time/transfers: 500 Internal error');
  });
});
