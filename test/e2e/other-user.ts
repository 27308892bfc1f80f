import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { BIN, prerequisite, program } from './helpers.js';

// Another user on the same machine, for what only file modes stop: the tests run as
// root (here and in CI), which modes do not stop, so payrec is run as `nobody` with
// setpriv, and what another user would plant is chowned to nobody. Off CI a missing
// prerequisite skips these tests; under CI it fails them (helpers.ts `prerequisite`).

export const NOBODY = 65534;
const setpriv = program('setpriv', 'util-linux');
/** Links and files of another user are made with chown: root only. */
export const root = prerequisite('root', typeof process.getuid === 'function' && process.getuid() === 0, 'run the suite as root, as CI does');
/** `nobody` running this checkout's payrec (a checkout under a 0700 home cannot be read by it). */
export const nobody = prerequisite(
  `root, setpriv and a checkout user nobody can read (${BIN})`,
  root.present && setpriv.present && spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'node', BIN, '--version']).status === 0,
  'run the suite as root from a checkout outside a private home, with util-linux installed',
);

/** `payrec args…` run as nobody, with only the environment given (and PATH, TZ, NO_COLOR). */
export function payrecAsNobody(args: string[], env: Record<string, string | undefined> = {}, input?: string) {
  return execa('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'node', BIN, ...args], {
    reject: false,
    extendEnv: false,
    input,
    env: { PATH: process.env.PATH, TZ: 'UTC', NO_COLOR: '1', ...env },
  });
}
