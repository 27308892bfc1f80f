import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { BIN, program } from './helpers.js';

// Another user on the same machine, for what only file modes stop: the tests run as
// root (here and in CI), which modes do not stop, so payrec is run as `nobody` with
// setpriv, and what another user would plant is chowned to nobody.

export const NOBODY = 65534;
const setpriv = program('setpriv', 'util-linux');
export const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
/** Whether `nobody` can run this checkout's payrec (a checkout under a 0700 home cannot be read by it). */
const nobodyRuns = asRoot && setpriv.present && spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'node', BIN, '--version']).status === 0;
/** Skip a test that runs payrec as nobody where it cannot (not root, no setpriv off CI, a checkout nobody cannot read). */
export const withoutNobody = !asRoot || setpriv.skip || (setpriv.present && !nobodyRuns);
/** Appended to such a test's name: why it is skipped or fails. */
export const nobodyNote = setpriv.note || (asRoot && !nobodyRuns ? ` (skipped: user nobody cannot read ${BIN})` : '');

/** `payrec args…` run as nobody, with only the environment given (and PATH, TZ, NO_COLOR). */
export function payrecAsNobody(args: string[], env: Record<string, string | undefined> = {}, input?: string) {
  return execa('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'node', BIN, ...args], {
    reject: false,
    extendEnv: false,
    input,
    env: { PATH: process.env.PATH, TZ: 'UTC', NO_COLOR: '1', ...env },
  });
}
