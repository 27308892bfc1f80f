import { join } from 'node:path';
import type { Emulator } from '../../src/emulator/index.js';
import { payrec, payrecInProcess, tempDir } from './helpers.js';

// What the doctor tests share: a home of their own, and doctor's rows as JSON.

export interface DoctorRow {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

/** A home of its own: HOME, XDG folders and the config folder inside one temporary folder. */
export function home(): Record<string, string> {
  const h = tempDir();
  return { HOME: h, XDG_DATA_HOME: join(h, 'data'), XDG_STATE_HOME: join(h, 'state'), XDG_CONFIG_HOME: join(h, 'config'), PAYREC_CONFIG_DIR: join(h, 'payrec-config'), SHELL: '/bin/bash' };
}

/**
 * `payrec doctor -f json` against `e` (its key, chain and URL) or none: the run, its rows,
 * and a row by its check. By the built binary in a process, or `inProcess` in the test's
 * worker (payrecInProcess), for a report where no process boundary is under test (issue 48).
 */
export async function runDoctor(e: Emulator | undefined, env: Record<string, string | undefined>, args: string[] = [], inProcess = false) {
  const r = await (inProcess ? payrecInProcess : payrec)(e, ['doctor', '-f', 'json', ...args], { env });
  const rows = JSON.parse(r.stdout) as DoctorRow[];
  const by = (check: string) => rows.find((x) => x.check === check);
  return { ...r, rows, by };
}
