import type { Stats } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { othersCanChange, shellWord } from '../../src/core/runtime/trust.js';

// The one trust check of the config, the mirror and the listener's memory (POSIX).

const me = process.getuid?.() ?? 0;
const myGroup = process.getgid?.() ?? 0;
const stats = (mode: number, uid = me, gid = myGroup) => ({ mode, uid, gid }) as Stats;

describe.skipIf(process.platform === 'win32')('othersCanChange', () => {
  it('nobody else: the owner alone may write (or root owns it)', () => {
    for (const mode of [0o100600, 0o100644, 0o40700, 0o40755]) expect(othersCanChange(stats(mode), mode & 0o40000 ? 'folder' : 'file')).toBeUndefined();
    expect(othersCanChange(stats(0o40755, 0), 'folder')).toBeUndefined();
  });

  it('others may write it, or a group other than the user\'s own', () => {
    expect(othersCanChange(stats(0o100666), 'file')).toBe('writable');
    expect(othersCanChange(stats(0o40777), 'folder')).toBe('writable');
    expect(othersCanChange(stats(0o40770, me, myGroup + 1), 'folder')).toBe('writable');
    expect(othersCanChange(stats(0o40770, me, myGroup), 'folder')).toBeUndefined(); // user private group
  });

  it('a sticky folder everyone can write (/tmp) lets nobody replace another\'s file; a sticky file means nothing', () => {
    expect(othersCanChange(stats(0o41777, 0), 'folder')).toBeUndefined();
    expect(othersCanChange(stats(0o101666), 'file')).toBe('writable');
  });

  it('another user\'s file or folder', () => {
    expect(othersCanChange(stats(0o100600, me + 1), 'file')).toBe(me + 1 === 0 ? undefined : 'not-own');
  });
});

describe('shellWord', () => {
  it('quotes a path for pasting only when it needs it', () => {
    expect(shellWord('/home/a/.local/share/payrec')).toBe('/home/a/.local/share/payrec');
    expect(shellWord("/tmp/it's here")).toBe(`'/tmp/it'\\''s here'`);
  });
});
