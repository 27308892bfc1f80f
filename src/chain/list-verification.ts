import type { Verdict } from './verdict-names.js';
import type { Difference, Judgement } from './verdict.js';
import type { RecordEnricher } from '../core/lists/enrich.js';

// --verify on a list, the first record enricher (core/lists/enrich.ts): each page's
// records are checked against the chain (the rest of src/chain/, loaded only then)
// before they are kept by --verdict and printed. A record gains `verdict`,
// `confirmations`, `blockNumber` and `chainDiff` (an array of {field, api, chain} in
// JSON, `amount 9.99 → 9.98; …` in tables and CSV); a wallet-to-wallet payment's
// receivers each gain their own verdict, confirmations and blockNumber.

export const VERIFY_COLUMNS = ['verdict', 'confirmations', 'blockNumber', 'chainDiff'] as const;

/** What --verify, --verdict and --confirmations asked. */
export interface VerifyQuery {
  /** --verdict: keep the records with these verdicts. */
  verdicts?: Set<Verdict>;
  /** --confirmations (default: the chain's, DESIGN.md). */
  confirmations?: number;
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

/** --verify's enricher: the chain's node is checked (its chain id) when it starts, before the API is asked for anything. */
export function verifyEnricher(query: VerifyQuery): RecordEnricher {
  return {
    fields: VERIFY_COLUMNS,
    tableColumns: verifyColumns,
    async start({ session, collectionOf, collection, pathValues, asJson }) {
      const [{ openVerifier }, { combine, subjectsOf }, { verifiable }] = await Promise.all([import('./open-verifier.js'), import('./verifier.js'), import('./verifiable.js')]);
      if (collection !== undefined && !verifiable(collection)) throw new Error(`--verify offered on ${collection}`);
      const verifier = await openVerifier(session, query.confirmations);
      const counts: Record<string, number> = {};
      const diff = (j: Judgement) => (asJson ? j.differences : differencesText(j.differences));
      const keep = query.verdicts ? (r: Record<string, unknown>) => query.verdicts!.has(r.verdict as Verdict) : undefined;
      return {
        keep,
        summary: { key: 'verdicts', label: 'verdict', counts },
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
    },
  };
}
