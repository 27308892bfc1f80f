import type { Difference } from './verdict.js';

// chainDiff as people read it in tables, CSV and workbooks (--verify, and payrec sql over
// chain_verdicts): `amount 9.99 → 9.98; token USDT → 0xfeea… (8PAY v1)`. Free of viem:
// payrec sql loads it at start-up.

/** Fields whose numbers are Unix seconds: shown as UTC date-times in text. */
const TIME_FIELD = /(^|\.)(timestamp|cycleStart|cycleEnd)$/;

/** `amount 9.99 → 9.98; event Billing → (none); token USDT → 0xfeea… (8PAY v1)`; times as UTC date-times. */
export function differencesText(differences: readonly Difference[]): string {
  const shown = (d: Difference, v: Difference['api']) =>
    v === null ? '(none)' : typeof v === 'number' && TIME_FIELD.test(d.field) && Number.isSafeInteger(v) ? new Date(v * 1000).toISOString().replace('.000Z', 'Z') : String(v);
  return differences.map((d) => `${d.field} ${shown(d, d.api)} → ${shown(d, d.chain)}${d.note ? ` (${d.note})` : ''}`).join('; ');
}

/** A stored chainDiff (JSON text or its array) as differencesText writes it; anything else as it is. */
export function chainDiffText(value: unknown): unknown {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return value;
    }
  }
  const isDifference = (d: unknown) => d !== null && typeof d === 'object' && 'field' in d && 'api' in d && 'chain' in d;
  return Array.isArray(v) && v.every(isDifference) ? differencesText(v as Difference[]) : value;
}
