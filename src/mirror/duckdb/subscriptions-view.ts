// The mirror's `subscriptions` view: payrec subscriptions' ledger as of now, for SQL
// users to join. Now is the command's clock, which `payrec sql` hands over as the
// variable payrec_now (so a pinned clock pins the view too), else DuckDB's now(), to
// the second. Same definitions as the engine
// (DESIGN.md "Subscriptions and revenue metrics"; the default grace of 30 days):
// paid = success 1 and confirmed; failed = success not 1 or status failed; records
// stamped before now; terms of the first paid billing; a forced cancellation ends a
// subscription at once, a voluntary one when its paid period ends (endsAt). The grace is
// 30 × 86,400 seconds, counted in epoch seconds: INTERVAL 30 DAY would be 30 calendar days
// of the session's zone (payrec sql --tz), an hour more or less across a change of summer time.
//
// mrr stays exact: DuckDB divides DECIMALs into a DOUBLE, so the amount is taken in
// units of 10^-18 as a HUGEINT (its DECIMAL(38,18) text without the point), divided in
// integers with half-even rounding to 18 places, and turned back into DECIMAL(38,18)
// through its text. A product beyond HUGEINT (an amount over about 10^13 at an odd
// period) raises an error rather than round.

/** DESIGN's default grace, in exact seconds (30 days of 86,400 s, whatever the session's zone). */
const GRACE_SECONDS = 30 * 86_400;

/** The view's definition over the stored tables of schema `store`. */
export function subscriptionsView(store: string): string {
  const BILLINGS = `${store}."fixed_recurring_billings"`;
  const CANCELLATIONS = `${store}."fixed_recurring_cancellations"`;
  return `CREATE OR REPLACE VIEW subscriptions AS
WITH clock AS (SELECT coalesce(getvariable('payrec_now')::TIMESTAMPTZ, date_trunc('second', now())) AS t),
billed AS (
  SELECT b.chain, b.subscriptionId, b.planId, b.token, b.amount, b.timestamp, b.cycleStart, b.cycleEnd,
         (b.success = 1 AND b.transactionStatus = 'confirmed') AS paid,
         (b.success IS DISTINCT FROM 1 OR b.transactionStatus = 'failed') AS failed
  FROM ${BILLINGS} AS b, clock WHERE b.timestamp < clock.t AND b.planId IS NOT NULL
),
terms AS (
  SELECT chain, subscriptionId,
         arg_min(planId, timestamp) FILTER (WHERE paid) AS planId,
         arg_min(token, timestamp) FILTER (WHERE paid) AS token,
         arg_min(amount, timestamp) FILTER (WHERE paid) AS amount,
         arg_min(epoch(cycleEnd) - epoch(cycleStart) + 1, timestamp) FILTER (WHERE paid)::BIGINT AS period,
         min(timestamp) FILTER (WHERE paid) AS started,
         max(cycleEnd) FILTER (WHERE paid) AS paidThrough,
         max(cycleStart) FILTER (WHERE paid) AS lastPaidCycle,
         max(timestamp) FILTER (WHERE paid OR failed) AS lastAttempt
  FROM billed GROUP BY chain, subscriptionId HAVING count(*) FILTER (WHERE paid) > 0
),
dunning AS (
  SELECT t.chain, t.subscriptionId, count(*) FILTER (WHERE b.failed AND b.cycleStart > t.lastPaidCycle)::INTEGER AS failedAttempts
  FROM terms AS t JOIN billed AS b USING (chain, subscriptionId) GROUP BY ALL
),
cancelled AS (
  SELECT c.chain, c.subscriptionId, min(c.timestamp) AS cancelledAt, arg_min(c.forced, c.timestamp) AS forced
  FROM ${CANCELLATIONS} AS c, clock WHERE c.transactionStatus = 'confirmed' AND c.timestamp < clock.t GROUP BY ALL
),
months AS (
  SELECT *, round(period / 86400.0)::BIGINT AS days,
         replace(amount::VARCHAR, '.', '')::HUGEINT AS atto
  FROM terms
),
mrr AS (
  SELECT *,
    CASE WHEN days BETWEEN 28 AND 31 THEN 1 WHEN days BETWEEN 56 AND 62 THEN 2 WHEN days BETWEEN 84 AND 92 THEN 3
         WHEN days BETWEEN 168 AND 184 THEN 6 WHEN days BETWEEN 360 AND 366 THEN 12 END AS m
  FROM months
),
quotient AS (
  SELECT *,
    CASE WHEN m IS NOT NULL THEN atto ELSE atto * 2629746 END AS num,
    CASE WHEN m IS NOT NULL THEN m::HUGEINT ELSE period::HUGEINT END AS den
  FROM mrr
),
rounded AS (
  SELECT *, num // den AS q, num % den AS r FROM quotient
),
exact AS (
  SELECT *, q + CASE WHEN 2 * r > den OR (2 * r = den AND q % 2 = 1) THEN 1 ELSE 0 END AS mrr_atto FROM rounded
),
ledger AS (
  SELECT e.chain, e.subscriptionId, e.planId, e.token, e.amount, e.period,
         CASE WHEN e.amount IS NULL THEN error('subscription ' || e.subscriptionId || ': its amount does not fit DECIMAL(38,18), so its mrr cannot be exact (SELECT * FROM inexact_amounts)')
              ELSE ((mrr_atto // 1000000000000000000)::VARCHAR || '.' || lpad((mrr_atto % 1000000000000000000)::VARCHAR, 18, '0'))::DECIMAL(38,18) END AS mrr,
         e.started, e.paidThrough, e.lastAttempt, coalesce(d.failedAttempts, 0) AS failedAttempts, c.cancelledAt, c.forced,
         -- A forced cancellation ends it at once; one by its customer when its paid period ends.
         CASE WHEN c.cancelledAt IS NULL THEN NULL WHEN c.forced THEN c.cancelledAt ELSE greatest(e.paidThrough, c.cancelledAt) END AS endsAt,
         CASE WHEN c.cancelledAt IS NOT NULL THEN (CASE WHEN c.forced OR clock.t > e.paidThrough THEN 'cancelled' ELSE 'active' END)
              WHEN clock.t <= e.paidThrough THEN 'active'
              WHEN epoch(clock.t) <= epoch(e.paidThrough) + ${GRACE_SECONDS} THEN 'past_due'
              ELSE 'lapsed' END AS state,
         clock.t AS t
  FROM exact AS e CROSS JOIN clock LEFT JOIN dunning AS d USING (chain, subscriptionId) LEFT JOIN cancelled AS c USING (chain, subscriptionId)
)
SELECT chain, subscriptionId, planId, token, amount, period, mrr, started, paidThrough, lastAttempt, failedAttempts, cancelledAt, forced, endsAt,
       CASE WHEN state IN ('past_due', 'lapsed') THEN (epoch(t)::BIGINT - epoch(paidThrough)::BIGINT - 1) // 86400 END AS daysPastDue,
       state
FROM ledger`;
}
