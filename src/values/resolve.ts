import Big from 'big.js';
import type { NoRate, Rate, RateAnswer, RateQuery, RateSource } from './rate.js';
import { DEFAULT_MAX_AGE, FIAT_MAX_AGE, type LegAnswer, type LegQuery, type LegSource } from './selection.js';
import { rateText } from './valuation.js';

// Precedence and the cross through USD (DESIGN.md "Which rate"): for each leg the first
// source that has the pair decides it (the user's policy first: --rates, then the
// mirror's rates, then Chainlink), in force or not. A currency with no direct rate goes
// through USD once: token → USD × USD → currency, where USD → currency is a fiat row
// written that way, or the inverse, exactly, of currency → USD (a fiat row, the EUR/USD
// feed). Sources are asked once per batch, each with the legs it decides.

export interface AgeLimits {
  /** Token legs (--rate-max-age; default 25 h). */
  token: number;
  /** Currency legs (5 d). */
  fiat: number;
}

export const DEFAULT_LIMITS: AgeLimits = { token: DEFAULT_MAX_AGE, fiat: FIAT_MAX_AGE };

const USD = 'USD';

/** How one query is answered: one leg, or two (the second inverted or not), or not at all. */
type Plan = { direct: Asked } | { first: Asked; second: Asked; inverted: boolean } | NoRate;
interface Asked {
  source: LegSource;
  query: LegQuery;
  /** Its answer, once asked. */
  answer?: LegAnswer;
}

/** Exact products of plain decimals (big.js's toFixed(): every digit, no exponent, no padding zeros). */
const product = (a: string, b: string) => new Big(a).times(b).toFixed();

/** How the queries of one (chain, token, currency) are answered, whatever their instant: found once per batch. */
type Route = { direct: LegSource } | { first: LegSource; second: LegSource; inverted: boolean } | NoRate;

export class Rates implements RateSource {
  constructor(
    private readonly sources: readonly LegSource[],
    private readonly limits: AgeLimits = DEFAULT_LIMITS,
  ) {}

  async rates(queries: readonly RateQuery[]): Promise<RateAnswer[]> {
    // Which source decides a leg depends on the pair, never on the instant: a route per pair.
    const routes = new Map<string, Route>();
    const plans = queries.map((q) => {
      const key = `${q.chain}\u0000${q.token}\u0000${q.currency}`;
      let route = routes.get(key);
      // Stryker disable next-line ConditionalExpression: a cache; a pair's route found again is the same route
      if (!route) routes.set(key, (route = this.route(q)));
      return this.plan(q, route);
    });
    // Each source asked once, with every leg it decides.
    const bySource = new Map<LegSource, Asked[]>();
    for (const p of plans) {
      for (const a of askedOf(p)) {
        const list = bySource.get(a.source);
        if (list) list.push(a);
        else bySource.set(a.source, [a]);
      }
    }
    await Promise.all(
      [...bySource].map(async ([source, asked]) => {
        const answers = await source.legs(asked.map((a) => a.query));
        asked.forEach((a, i) => (a.answer = answers[i]));
      }),
    );
    return plans.map((p) => answerOf(p));
  }

  /**
   * The same answers as `rates`, at once, when the sources deciding the pair's legs have
   * them at hand (a rates file): a report valuing a million records asks a million
   * instants, and a batch of them (a query, a plan and a leg each) cost more time and
   * memory than the report. Undefined when a leg must always be read (Chainlink); the
   * function answers undefined at an instant where one must be read there.
   */
  atHand(chain: string, token: string, currency: string): ((at: number) => RateAnswer | undefined) | undefined {
    const q = { chain, token, currency, at: 0 };
    const route = this.route(q);
    if ('missing' in route) return () => route;
    if ('direct' in route) return route.direct.atHand?.(this.leg(q, token, currency, false));
    const first = route.first.atHand?.(this.leg(q, token, USD, false));
    const second = route.second.atHand?.(route.inverted ? this.leg(q, currency, USD, true) : this.leg(q, USD, currency, true));
    if (!first || !second) return undefined;
    // A cross is made once per pair of legs' rates (a row of each), as the rows' rates are.
    const crossed = new Map<Rate, Map<Rate, RateAnswer>>();
    return (at) => {
      const a = first(at);
      if (a === undefined || 'missing' in a) return a;
      const b = second(at);
      if (b === undefined || 'missing' in b) return b;
      let byB = crossed.get(a);
      // Stryker disable next-line ConditionalExpression: a cache of crosses; a new map only crosses again
      if (!byB) crossed.set(a, (byB = new Map()));
      let answer = byB.get(b);
      // Stryker disable next-line ConditionalExpression: a cache; crossing the same two rates again gives an equal rate
      if (!answer) byB.set(b, (answer = cross(a, b, route.inverted)));
      return answer;
    };
  }

  private leg(q: Pick<RateQuery, 'chain' | 'at'>, token: string, currency: string, fiat: boolean): LegQuery {
    return { chain: q.chain, token, currency, at: q.at, fiat, maxAge: fiat ? this.limits.fiat : this.limits.token };
  }

  private plan(q: RateQuery, route: Route): Plan {
    if ('missing' in route) return route;
    if ('direct' in route) return { direct: { source: route.direct, query: this.leg(q, q.token, q.currency, false) } };
    const second = route.inverted ? this.leg(q, q.currency, USD, true) : this.leg(q, USD, q.currency, true);
    return { first: { source: route.first, query: this.leg(q, q.token, USD, false) }, second: { source: route.second, query: second }, inverted: route.inverted };
  }

  private route(q: RateQuery): Route {
    const leg = (token: string, currency: string, fiat: boolean) => this.leg(q, token, currency, fiat);
    const first = (query: LegQuery) => this.sources.find((s) => s.has(query));
    const direct = first(leg(q.token, q.currency, false));
    if (direct) return { direct };
    // Through USD (for USD itself this finds nothing the direct leg did not).
    const toUsd = leg(q.token, USD, false);
    const viaUsd = first(toUsd);
    if (!viaUsd) return { missing: this.lacking(toUsd) };
    // USD → currency written so, or currency → USD inverted: in each source's turn.
    const forward = leg(USD, q.currency, true);
    const backward = leg(q.currency, USD, true);
    for (const source of this.sources) {
      if (source.has(forward)) return { first: viaUsd, second: source, inverted: false };
      if (source.has(backward)) return { first: viaUsd, second: source, inverted: true };
    }
    return { missing: `${q.token} has a rate in USD, but there is no rate between USD and ${q.currency}: ${this.lacking(backward)}` };
  }

  private lacking(q: LegQuery): string {
    const said = this.sources.map((s) => s.lacks?.(q)).filter((x) => x !== undefined);
    const pair = q.fiat ? `${q.token} → ${q.currency}` : `${q.token} → ${q.currency} on ${q.chain}`;
    return `no rate of ${pair}${said.length ? ` (${said.join('; ')})` : ''}`;
  }
}

function askedOf(p: Plan): Asked[] {
  if ('direct' in p) return [p.direct];
  if ('first' in p) return [p.first, p.second];
  return [];
}

function answerOf(p: Plan): RateAnswer {
  if ('missing' in p) return p;
  if ('direct' in p) return p.direct.answer!;
  const a = p.first.answer!;
  const b = p.second.answer!;
  if ('missing' in a) return a;
  if ('missing' in b) return b;
  return cross(a, b, p.inverted);
}

/** token → USD × USD → currency; `inverted`: b is currency → USD, divided by exactly. */
export function cross(a: Rate, b: Rate, inverted: boolean): RateAnswer {
  if (inverted && b.zero) return { missing: `${b.rateSource} is a zero rate, which cannot be inverted` };
  const numerator = product(a.numerator, inverted ? b.denominator : b.numerator);
  const denominator = product(a.denominator, inverted ? b.numerator : b.denominator);
  const times = [a.rateTime, b.rateTime].filter((t) => t !== null);
  return {
    rate: rateText(numerator, denominator),
    numerator,
    denominator,
    rateTime: times.length ? Math.min(...times) : null,
    rateSource: `${a.rateSource} × ${inverted ? '1/' : ''}${b.rateSource}`,
    zero: a.zero || b.zero,
  };
}
