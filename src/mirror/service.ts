import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import type { Session } from '../core/runtime/session.js';
import type { MirrorStore } from './engine.js';

// Which service a mirror's records came from. Records of two services must never
// meet in one table: their ids, cursors and totals would mix. The service is the base
// URL (scheme, host, port and path); `--emulator` starts its emulator on a new port
// every run, so it is named by what makes its data, not by its URL.

export interface Service {
  /** Stable name stored in the mirror. */
  id: string;
  /** The --emulator's demo data: a mirror of another day's demo data is emptied and read anew. */
  demo?: boolean;
}

const EMULATOR_SERVICE = 'payrec emulator';

export async function serviceOf(session: Session): Promise<Service> {
  // Its data are seeded (seed 1, the emulator's default) and made up to its anchor (a day):
  // every --emulator run of one anchor serves the same records, another day's run others.
  if (session.flags.emulator) {
    const { emulatorAnchor } = await import('../core/runtime/emulator-clock.js');
    const day = new Date(emulatorAnchor(session.ctx.env, session.ctx.now()).seconds * 1000).toISOString().slice(0, 10);
    return { id: `${EMULATOR_SERVICE} (--emulator, seed 1, data of ${day})`, demo: true };
  }
  const url = new URL((await session.settings()).baseUrl);
  return { id: `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}` };
}

/**
 * Refuses a mirror that holds another service's records (a new one is stamped by
 * stampService). The emulator makes its demo data up to a day that moves with the
 * calendar, so a mirror of another day's demo data would mix two worlds: it is emptied
 * (in the caller's transaction) and read anew; the returned notice says so.
 */
export async function checkService(db: MirrorStore, service: Service): Promise<string | undefined> {
  const stored = await db.readMeta('service');
  if (stored === undefined || stored === service.id) return undefined;
  if (service.demo && stored.startsWith(EMULATOR_SERVICE)) {
    await db.clearRecords();
    return `the mirror ${printable(db.name)} held ${printable(stored)}; the emulator now serves ${printable(service.id)}, so this sync read its records anew`;
  }
  throw new UsageError(
    `the mirror ${printable(db.name)} holds records of ${printable(stored)}, not of ${printable(service.id)}: a mirror never mixes services; nothing was changed`,
    'give another --db for this service (the default file is per profile)',
  );
}

/** Notes the service in the mirror: in the transaction of its first records or cursor (see sync.ts). */
export async function stampService(db: MirrorStore, service: Service): Promise<void> {
  await db.writeMeta('service', service.id);
}

/**
 * Under --emulator, a mirror synced from another day's demo data than this run's emulator
 * makes (PAYREC_EMULATOR_NOW, or yesterday's sync read today): said on stderr, since its
 * figures are of that day and `payrec --emulator sync` would empty it for this one's.
 */
export async function warnOtherDemoDay(session: Session, db: MirrorStore): Promise<void> {
  if (!session.flags.emulator) return;
  const stored = await db.readMeta('service').catch(() => undefined);
  const service = await serviceOf(session);
  if (stored === undefined || stored === service.id || !stored.startsWith(EMULATOR_SERVICE)) return;
  const day = (id: string) => /data of (\d{4}-\d{2}-\d{2})/.exec(id)?.[1] ?? printable(id);
  session.warn(
    `the mirror ${printable(db.name)} holds the emulator's data of ${day(stored)}, this run's emulator makes those of ${day(service.id)}: figures are of ${day(stored)}; ` +
      `payrec --emulator sync reads ${day(service.id)}'s anew, or set PAYREC_EMULATOR_NOW=${day(stored)}`,
  );
}
