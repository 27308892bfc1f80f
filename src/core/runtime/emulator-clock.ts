import type { Context } from './context.js';
import { parseTime } from './time.js';

// The built-in emulator (--emulator) makes its records up to one instant, its anchor:
// today's midnight (UTC) unless PAYREC_EMULATOR_NOW names another. With an anchor
// given, the command's own clock stands there too, for the whole run, so "--from 30d",
// "--period today", "--all" and sync's "synced up to" count from the day the data were
// made for: examples and tests print the same on any day, however long a run takes (a
// clock that ran on from the anchor printed 00:00:01 for 00:00:00 on a loaded machine).

const DAY = 86_400;

/** The anchor of --emulator's data, in Unix seconds, and whether PAYREC_EMULATOR_NOW chose it. */
export function emulatorAnchor(env: NodeJS.ProcessEnv, nowMs: number): { seconds: number; pinned: boolean } {
  const given = env.PAYREC_EMULATOR_NOW;
  if (given !== undefined) return { seconds: parseTime(given, nowMs, 'PAYREC_EMULATOR_NOW'), pinned: true };
  return { seconds: Math.floor(nowMs / 1000 / DAY) * DAY, pinned: false };
}

/** The context of an --emulator run: its clock stands at a pinned anchor. */
export function emulatorContext(ctx: Context): Context {
  const anchor = emulatorAnchor(ctx.env, ctx.now());
  if (!anchor.pinned) return ctx;
  // The anchor is resolved once: an age ("2d") read again later would count from the pinned clock.
  const env = { ...ctx.env, PAYREC_EMULATOR_NOW: String(anchor.seconds) };
  return { ...ctx, env, now: () => anchor.seconds * 1000 };
}
