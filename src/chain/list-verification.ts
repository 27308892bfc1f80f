import type { Endpoint } from '../registry/types.js';
import type { Verdict } from './verdict-names.js';
import type { Difference, Judgement } from './verdict.js';
import type { Session } from '../core/runtime/session.js';
import type { MergedList } from '../core/lists/list-query.js';

// --verify on a list: each page's records are checked against the chain (src/chain/,
// loaded only then) before they are kept by --verdict and printed. A record gains
// `verdict`, `confirmations`, `blockNumber` and `chainDiff` (an array of {field, api,
// chain} in JSON, `amount 9.99 → 9.98; …` in tables and CSV); a wallet-to-wallet
// payment's receivers each gain their own verdict, confirmations and blockNumber.

export const VERIFY_COLUMNS = ['verdict', 'confirmations', 'blockNumber', 'chainDiff'] as const;

/** What --verify, --verdict and --confirmations asked. */
export interface VerifyQuery {
  /** --verdict: keep the records with these verdicts. */
  verdicts?: Set<Verdict>;
  /** --confirmations (default: the chain's, DESIGN.md). */
  confirmations?: number;
}

export interface ListVerification {
  /** The page's records, each with its verdict (in order). */
  page(records: Record<string, unknown>[]): Promise<Record<string, unknown>[]>;
  /** --verdict, when given. */
  keep?: (record: Record<string, unknown>) => boolean;
  /** Records per verdict so far (of those kept), for --summary. */
  counts: Record<string, number>;
}

/** The default table columns with the verdict's: the verdict second (a narrow terminal keeps it), the rest at the end. */
export function verifyColumns(columns: readonly string[]): string[] {
  return [...columns.slice(0, 1), 'verdict', ...columns.slice(1), 'confirmations', 'blockNumber', 'chainDiff'];
}

/** `amount 9.99 → 9.98; event Billing → (none)`. */
export function differencesText(differences: readonly Difference[]): string {
  const shown = (v: Difference['api']) => (v === null ? '(none)' : String(v));
  return differences.map((d) => `${d.field} ${shown(d.api)} → ${shown(d.chain)}`).join('; ');
}

export async function startListVerification(
  session: Session,
  endpoint: Endpoint | MergedList,
  query: VerifyQuery,
  pathValues: Record<string, string>,
  asJson: boolean,
): Promise<ListVerification> {
  const [{ openVerifier }, { combine, subjectsOf }, { verifiable }] = await Promise.all([import('./open-verifier.js'), import('./verifier.js'), import('./verifiable.js')]);
  const collectionOf = 'walk' in endpoint ? (r: Record<string, unknown>) => endpoint.collectionOf(r) : () => endpoint.collection;
  if (!('walk' in endpoint) && !verifiable(endpoint.collection)) throw new Error(`--verify offered on ${endpoint.collection}`);
  const verifier = await openVerifier(session, query.confirmations);
  const counts: Record<string, number> = {};
  const diff = (j: Judgement) => (asJson ? j.differences : differencesText(j.differences));
  const keep = query.verdicts ? (r: Record<string, unknown>) => query.verdicts!.has(r.verdict as Verdict) : undefined;
  return {
    keep,
    counts,
    async page(records) {
      const subjects = records.map((r) => subjectsOf(collectionOf(r), r, pathValues.planId));
      const judged = await verifier.verify(subjects.flat());
      let k = 0;
      return records.map((record, i) => {
        const parts = judged.slice(k, (k += subjects[i].length));
        const j = combine(parts);
        const out: Record<string, unknown> = { ...record, verdict: j.verdict, confirmations: j.confirmations, blockNumber: j.blockNumber, chainDiff: diff(j) };
        if (subjects[i].some((s) => s.receiver !== undefined)) {
          out.receivers = (record.receivers as Record<string, unknown>[]).map((r, n) => ({ ...r, verdict: parts[n].verdict, confirmations: parts[n].confirmations, blockNumber: parts[n].blockNumber }));
        }
        if (!keep || keep(out)) counts[j.verdict] = (counts[j.verdict] ?? 0) + 1;
        return out;
      });
    },
  };
}
