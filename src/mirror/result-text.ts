import { formatLocal, offsetAt } from '../core/runtime/zone.js';

// How payrec sql prints a mirror's decimals and times, whatever the engine: decimals as
// --summary writes them (no padding zeros), times as DuckDB and PostgreSQL write a
// TIMESTAMP WITH TIME ZONE (`2026-10-31 15:05:09+01`), in --tz with each instant's own
// offset.

/**
 * A time (`seconds` since the epoch, and `micros` past them) as `2026-10-31 15:05:09+01`
 * in `zone`, with that instant's own offset (daylight saving changes it half the year).
 */
export function zonedTime(seconds: number, micros: number, zone: string): string {
  const fraction = micros === 0 ? '' : `.${String(micros).padStart(6, '0').replace(/0+$/, '')}`;
  const offset = offsetAt(seconds, zone);
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = (abs % 3600) / 60;
  return `${formatLocal(seconds, zone)}${fraction}${offset < 0 ? '-' : '+'}${hh}${mm ? `:${String(mm).padStart(2, '0')}` : ''}`;
}

/** A decimal's text without trailing fraction zeros (nor a bare point); '-0' is '0'. */
export function withoutPaddingZeros(text: string): string {
  if (!text.includes('.')) return text === '-0' ? '0' : text;
  const trimmed = text.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '-0' ? '0' : trimmed;
}
