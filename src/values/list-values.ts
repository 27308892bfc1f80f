import Big from 'big.js';
import type { RecordEnricher } from '../core/lists/enrich.js';
import type { Session } from '../core/runtime/session.js';
import { neutraliseTerminal } from '../core/output/sanitize.js';
import { MissingRates } from './missing.js';
import { isRate, MISSING_SOURCE, type Rate, type RateAnswer, type RateQuery, type RateSource } from './rate.js';
import { shownValue, valuer, type Valuer } from './valuation.js';
import { grouped } from '../core/output/grouped.js';

// --currency on a list, the second record enricher (core/lists/enrich.ts): each page's
// records are valued at the rate in force at their timestamps, asked of the rate source
// in one batch per page (or at once, figure by figure, where its rates are at hand). A record gains `value`, `feeValue`, `rate`, `rateTime` and
// `rateSource`; a record with receivers values each receiver (at its own timestamp when
// it has one) and its value is the sum of theirs; an execution's value is that of its
// swaps' inputs. A record without a usable rate fails the list when the walk ends (exit
// 11, naming what is missing), or with `--rates-missing blank` is printed with an empty
// value and rateSource `missing`, said on stderr.

export const VALUE_COLUMNS = ['value', 'feeValue', 'rate', 'rateTime', 'rateSource'] as const;

export interface CurrencyQuery {
  currency: string;
  /** --rates-missing blank: print what is missing as empty, and say so. */
  blank: boolean;
  /** Tables: the currency's minor unit (2 for USD), marked ~ where rounded; undefined keeps every digit. */
  minorDigits?: number;
}

/** The default table columns with the value's: value after the amount (or last), the evidence at the end. */
export function valueColumns(columns: readonly string[]): string[] {
  const at = columns.findIndex((c) => c === 'amount' || c === 'receivers' || c === 'swaps');
  const cols = at === -1 ? [...columns, 'value'] : [...columns.slice(0, at + 1), 'value', ...columns.slice(at + 1)];
  return [...cols, 'rate', 'rateSource'];
}

/** A figure to value: an amount (and a fee) at an instant. */
interface Figure {
  amount?: string;
  fee?: string;
  at: number;
}

const Exact = Big();
Exact.NE = -1e6;
Exact.PE = 1e6;

export function currencyEnricher(query: CurrencyQuery, open: (session: Session) => Promise<RateSource>): RecordEnricher {
  return {
    fields: VALUE_COLUMNS,
    tableColumns: valueColumns,
    async start({ session }) {
      const source = await open(session);
      const chain = (await session.settings()).chain;
      const missing = new MissingRates();
      const shown = (v: string) => (query.minorDigits === undefined || v === '' ? v : shownValue(v, query.minorDigits));
      // Rates at hand (a rates file, the mirror's) are looked up at once, figure by figure; the others are read in one batch per page.
      const hands = new Map<string, ((at: number) => RateAnswer | undefined) | undefined>();
      const handOf = (token: string) => {
        if (!hands.has(token)) hands.set(token, source.atHand?.(chain, token, query.currency));
        return hands.get(token);
      };
      // Each rate's valuer, by the rate object (sources hand out one object per rate): records
      // of several tokens alternate, so the last rate alone was rarely the next one's.
      const valuers = new WeakMap<Rate, Valuer>();
      const valuerOf = (rate: Rate): Valuer => {
        let v = valuers.get(rate);
        if (!v) valuers.set(rate, (v = valuer(rate)));
        return v;
      };
      const valuedAt = (x: Figure, rate: Rate): Valued => {
        const v = valuerOf(rate);
        return { value: valueText(v, x.amount), feeValue: valueText(v, x.fee), rate: rate.rate, rateTime: rate.rateTime, rateSource: sourceOf(rate) };
      };
      /**
       * A record of one figure (no receivers, no swaps) whose rate is at hand, valued now
       * with nothing made but its cells: the common case of a large export, where a figure
       * object, an answer and a Valued per record cost more than the valuing (GC). False
       * when the record takes the page's general path (receivers, swaps, a rate to read, no
       * usable rate: what is missing is counted there, in the records' order).
       */
      const valuedAtHand = (r: Record<string, unknown>): boolean => {
        if (Array.isArray(r.receivers) || Array.isArray(r.swaps)) return false;
        const token = tokenOf(r);
        const at = time(r.timestamp);
        if (token === undefined || at === undefined) return false;
        const a = handOf(token)?.(at);
        if (a === undefined || !isRate(a)) return false;
        const v = valuerOf(a);
        r.value = shown(valueText(v, r.amount));
        r.feeValue = shown(valueText(v, r.fee));
        r.rate = a.rate;
        r.rateTime = a.rateTime ?? undefined;
        r.rateSource = sourceOf(a);
        return true;
      };
      return {
        totals: ['value', 'feeValue'],
        async page(all) {
          // The page's records are the walk's own: values are added in place, in one order (one shape for every record).
          const records = all.filter((r) => !valuedAtHand(r));
          if (records.length === 0) return all;
          // The rate of every other figure, in order: at hand, or asked in one batch.
          const figures = records.map((r) => figuresOf(r));
          const tokens = records.map((r) => tokenOf(r));
          const answers: (RateAnswer | undefined)[] = [];
          const queries: RateQuery[] = [];
          const asked: number[] = [];
          const answer = (token: string, x: Figure | undefined) => {
            if (!x) return;
            const a = handOf(token)?.(x.at);
            if (a === undefined) {
              asked.push(answers.length);
              queries.push({ chain, token, currency: query.currency, at: x.at });
            }
            answers.push(a);
          };
          for (const [i, f] of figures.entries()) {
            const token = tokens[i];
            if (token === undefined) continue;
            answer(token, f.own);
            for (const x of f.receivers) answer(token, x);
          }
          if (queries.length > 0) {
            const read = await source.rates(queries);
            asked.forEach((at, n) => (answers[at] = read[n]));
          }
          let k = 0;
          records.forEach((record, i) => {
            const f = figures[i];
            const token = tokens[i];
            const valued = (x: Figure | undefined): Valued => {
              if (!x || token === undefined) return blankOf(undefined);
              const a = answers[k++]!;
              if (!isRate(a)) {
                missing.add({ chain, token, currency: query.currency, at: x.at }, a.missing);
                return blankOf(undefined);
              }
              return valuedAt(x, a);
            };
            const own = valued(f.own);
            const receivers = f.receivers.map(valued);
            const out = record;
            if (f.receivers.length > 0) {
              out.receivers = (record.receivers as Record<string, unknown>[]).map((r, n) => ({ ...r, ...cells(receivers[n], shown) }));
              // The record's value: the sum of its receivers' (each rounded once), when all have one; its rate theirs when they share one.
              const every = receivers.every((v) => v.rateSource !== MISSING_SOURCE);
              const sum = (key: 'value' | 'feeValue') => receivers.reduce((s, v) => s.plus(v[key] || 0), new Exact(0)).toFixed();
              const one = receivers.every((v) => v.rateSource === receivers[0].rateSource) ? receivers[0] : undefined;
              const rateOf = one ?? { rate: '', rateTime: null, rateSource: every ? 'per receiver' : MISSING_SOURCE };
              setCells(out, { ...rateOf, value: every ? sum('value') : '', feeValue: every ? sum('feeValue') : '' }, shown);
            } else setCells(out, own, shown);
          });
          return all;
        },
        finish() {
          settleMissing(session, missing, query.blank);
        },
      };
    },
  };
}

/**
 * What no rate could be given for: exit 11 naming each pair with the rates-file lines to
 * fill, or with --rates-missing blank a note of what the figures leave out.
 */
export function settleMissing(session: Session, missing: MissingRates, blank: boolean): void {
  if (missing.count === 0) return;
  if (!blank) {
    // Server text (a token) in each line: inert on a terminal, as every message.
    for (const line of missing.report()) session.ctx.stderr.write(`${neutraliseTerminal(line)}\n`);
    throw missing.error();
  }
  session.note(`${grouped(missing.count)} figure${missing.count === 1 ? '' : 's'} had no usable rate: printed with an empty value and rateSource missing, and left out of every total:`);
  for (const line of missing.lines()) session.note(`  ${line}`);
}

/** A rate's source as printed: a rate written as 0 is flagged. */
export const sourceOf = (rate: Rate): string => (rate.zero ? `${rate.rateSource} (zero rate)` : rate.rateSource);

interface Valued {
  value: string;
  feeValue: string;
  rate: string;
  rateTime: number | null;
  rateSource: string;
}

function blankOf(rate: Rate | undefined): Valued {
  return { value: '', feeValue: '', rate: rate?.rate ?? '', rateTime: rate?.rateTime ?? null, rateSource: rate ? rate.rateSource : MISSING_SOURCE };
}

function cells(v: Valued, shown: (v: string) => string): Record<string, unknown> {
  return { value: shown(v.value), feeValue: shown(v.feeValue), rate: v.rate, rateTime: v.rateTime ?? undefined, rateSource: v.rateSource };
}

function setCells(r: Record<string, unknown>, v: Valued, shown: (v: string) => string): void {
  r.value = shown(v.value);
  r.feeValue = shown(v.feeValue);
  r.rate = v.rate;
  r.rateTime = v.rateTime ?? undefined;
  r.rateSource = v.rateSource;
}

/** The token a record's figures are in: its `token`, or an execution's input token. */
function tokenOf(r: Record<string, unknown>): string | undefined {
  const t = r.token ?? r.inputToken;
  return typeof t === 'string' ? t : undefined;
}

/** A figure's value at a rate: empty when the record has no amount there, or one that is not a plain decimal. */
const valueText = (v: Valuer, amount: unknown) => (typeof amount === 'string' ? (v(amount) ?? '') : '');
const text = (v: unknown) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? v : undefined);
const time = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);

/** The record's own figure (at its timestamp) and its receivers' (each at its own timestamp, else the record's). */
function figuresOf(r: Record<string, unknown>): { own?: Figure; receivers: Figure[] } {
  const at = time(r.timestamp);
  if (at === undefined) return { receivers: [] };
  if (Array.isArray(r.receivers)) {
    const receivers = (r.receivers as Record<string, unknown>[]).map((x) => ({ amount: text(x?.amount), fee: text(x?.fee), at: time(x?.timestamp) ?? at }));
    return { receivers };
  }
  if (Array.isArray(r.swaps)) {
    const inputs = (r.swaps as Record<string, unknown>[]).map((s) => text(s?.inputAmount));
    const amount = inputs.every((x) => x !== undefined) ? inputs.reduce((s, x) => s.plus(x!), new Exact(0)).toFixed() : undefined;
    return { own: { amount, fee: text(r.fee), at }, receivers: [] };
  }
  return { own: { amount: text(r.amount), fee: text(r.fee), at }, receivers: [] };
}
