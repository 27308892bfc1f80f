import type { Verdict } from './verdict-names.js';
import type { Judgement } from './verdict.js';
import type { RecordEnricher } from '../core/lists/enrich.js';
import type { Subject } from './decode.js';
import { differencesText } from './differences-text.js';

// --verify on a list, the first record enricher (core/lists/enrich.ts): each page's
// records are checked against the chain (the rest of src/chain/, loaded only then)
// before they are kept by --verdict and printed. A record gains `verdict`,
// `confirmations`, `blockNumber`, `chainDiff` (an array of {field, api, chain, note?} in
// JSON, `amount 9.99 → 9.98; …` in tables and CSV: a bad verdict's reason first) and
// `explorer` (the transaction's page); a wallet-to-wallet payment's receivers each gain
// their own verdict, confirmations, blockNumber and explorer. --summary counts records
// and sums their amounts per verdict.

export const VERIFY_COLUMNS = ['verdict', 'confirmations', 'blockNumber', 'chainDiff', 'explorer'] as const;

/** What --verify, --verdict and --confirmations asked. */
export interface VerifyQuery {
  /** --verdict: keep the records with these verdicts. */
  verdicts?: Set<Verdict>;
  /** --confirmations (default: the chain's, DESIGN.md). */
  confirmations?: number;
}

/** The default table columns with the verdict's: the verdict second (a narrow terminal keeps it), the rest at the end. */
export function verifyColumns(columns: readonly string[]): string[] {
  return [...columns.slice(0, 1), 'verdict', ...columns.slice(1), 'confirmations', 'blockNumber', 'chainDiff', 'explorer'];
}

/** --verify's enricher: the chain's node is checked (its chain id) when it starts, before the API is asked for anything. */
export function verifyEnricher(query: VerifyQuery): RecordEnricher {
  return {
    fields: VERIFY_COLUMNS,
    tableColumns: verifyColumns,
    async start({ session, collectionOf, collection, pathValues, asJson }) {
      const [{ openVerifier }, { combine, subjectsOf }, { verifiable }, { explorerUrl }, { PaymentTags, withPaymentTags }, { default: Big }] = await Promise.all([
        import('./open-verifier.js'),
        import('./verifier.js'),
        import('./verifiable.js'),
        import('./explorers.js'),
        import('./payment-tags.js'),
        import('big.js'),
      ]);
      if (collection !== undefined && !verifiable(collection)) throw new Error(`--verify offered on ${collection}`);
      const verifier = await openVerifier(session, query.confirmations);
      const tags = new PaymentTags(() => session.client());
      const counts: Record<string, number> = {};
      const totals = new Map<string, Map<string, InstanceType<typeof Big>>>();
      /** What a subject moves, by token: its amount (a wallet-to-wallet receiver's own), a payment's receivers' sum, or an execution's inputs. */
      const addAmount = (verdict: string, s: Subject) => {
        const r = s.record;
        const decimal = (v: unknown) => (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? new Big(v) : undefined);
        const list = (items: unknown, field: string) => (Array.isArray(items) ? items.map((x) => decimal((x as Record<string, unknown>)?.[field])) : []);
        const own = s.receiver !== undefined ? [decimal((r.receivers as Record<string, unknown>[])[s.receiver]?.amount)] : r.amount !== undefined ? [decimal(r.amount)] : r.swaps !== undefined ? list(r.swaps, 'inputAmount') : list(r.receivers, 'amount');
        const token = typeof r.token === 'string' ? r.token : typeof r.inputToken === 'string' ? r.inputToken : undefined;
        // Every piece a plain decimal, or the record has no amount to add (a cancellation has none).
        const sum = own.length > 0 && own.every((x) => x !== undefined) ? own.reduce((a, b) => a!.plus(b!), new Big(0)) : undefined;
        if (token === undefined || sum === undefined) return;
        const byToken = totals.get(verdict) ?? new Map();
        byToken.set(token, (byToken.get(token) ?? new Big(0)).plus(sum));
        totals.set(verdict, byToken);
      };
      const diff = (j: Judgement) => (asJson ? j.differences : differencesText(j.differences));
      const keep = query.verdicts ? (r: Record<string, unknown>) => query.verdicts!.has(r.verdict as Verdict) : undefined;
      return {
        keep,
        summary: {
          key: 'verdicts',
          label: 'verdict',
          counts,
          amounts: { key: 'verdictAmounts', of: () => Object.fromEntries([...totals].map(([v, byToken]) => [v, Object.fromEntries([...byToken].map(([t, n]) => [t, n.toFixed()]))])) },
        },
        async page(records) {
          const subjects = records.map((r) => subjectsOf(collectionOf(r), r, pathValues.planId));
          await withPaymentTags(subjects.flat(), tags);
          const judged = await verifier.verify(subjects.flat());
          let k = 0;
          return records.map((record, i) => {
            const parts = judged.slice(k, (k += subjects[i].length));
            const j = combine(parts);
            const explorer = explorerUrl(verifier.chain, record.transactionHash);
            const out: Record<string, unknown> = { ...record, verdict: j.verdict, confirmations: j.confirmations, blockNumber: j.blockNumber, chainDiff: diff(j), explorer };
            if (subjects[i].some((s) => s.receiver !== undefined)) {
              out.receivers = (record.receivers as Record<string, unknown>[]).map((r, n) => ({ ...r, verdict: parts[n].verdict, confirmations: parts[n].confirmations, blockNumber: parts[n].blockNumber, explorer: explorerUrl(verifier.chain, r.transactionHash) }));
            }
            if (!keep || keep(out)) {
              counts[j.verdict] = (counts[j.verdict] ?? 0) + 1;
              subjects[i].forEach((s, n) => addAmount(parts[n].verdict, s));
            }
            return out;
          });
        },
      };
    },
  };
}
