import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import type { Session } from '../core/runtime/session.js';
import { readMeta, writeMeta } from './state.js';
import type { MirrorDb } from './store.js';

// Which service a mirror's records came from. Records of two services must never
// meet in one table: their ids, cursors and totals would mix. The service is the base
// URL (scheme, host, port and path); `--emulator` starts its emulator on a new port
// every run, so it is named by what makes its data, not by its URL.

export interface Service {
  /** Stable name stored in the mirror. */
  id: string;
}

export async function serviceOf(session: Session): Promise<Service> {
  // Its data are seeded (seed 1, the emulator's default): every --emulator run serves the same records.
  if (session.flags.emulator) return { id: 'payrec emulator (--emulator, seed 1)' };
  const url = new URL((await session.settings()).baseUrl);
  return { id: `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}` };
}

/** Refuses a mirror that holds another service's records (a new one is stamped by stampService). */
export async function checkService(db: MirrorDb, service: Service): Promise<void> {
  const stored = await readMeta(db, 'service');
  if (stored !== undefined && stored !== service.id) {
    throw new UsageError(
      `the mirror ${printable(db.file)} holds records of ${printable(stored)}, not of ${printable(service.id)}: a mirror never mixes services; nothing was changed`,
      'give another --db for this service (the default file is per profile)',
    );
  }
}

/** Notes the service in the mirror: in the transaction of its first records or cursor (see sync.ts). */
export async function stampService(db: MirrorDb, service: Service): Promise<void> {
  await writeMeta(db, 'service', service.id);
}
