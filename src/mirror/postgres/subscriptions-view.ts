// The mirror's `subscriptions` view on PostgreSQL: the ledger of payrec subscriptions
// as of now, with the same columns and meanings as DuckDB's (../duckdb/subscriptions-view.ts
// says them: paid, failed, terms of the first paid billing, forced and voluntary
// cancellations, 30 × 86,400 s of grace). Now is the command's clock, which payrec
// hands over as the setting payrec.now (so a pinned clock pins the view too), else the
// server's now(), to the second.
//
// mrr stays exact: NUMERIC multiplies and takes whole quotients (div, mod) exactly, so
// the amount in units of 10^-18 is divided in integers with half-even rounding to 18
// places, as the engine does.

const GRACE_SECONDS = 30 * 86_400;

/** The view's definition in schema `view` over the stored tables of schema `store` (both quoted). */
export function subscriptionsView(view: string, store: string): string {
  const BILLINGS = `${store}."fixed_recurring_billings"`;
  const CANCELLATIONS = `${store}."fixed_recurring_cancellations"`;
  const epoch = (t: string) => `extract(epoch FROM ${t})`;
  return `CREATE VIEW ${view}.subscriptions AS
WITH clock AS (SELECT coalesce(to_timestamp(nullif(current_setting('payrec.now', true), '')::BIGINT), date_trunc('second', now())) AS t),
billed AS (
  SELECT b.chain, b."subscriptionId", b."planId", b.token, b.amount, b."timestamp", b."cycleStart", b."cycleEnd", b.inexact_amounts,
         (b.success = 1 AND b."transactionStatus" = 'confirmed') AS paid,
         (b.success IS DISTINCT FROM 1 OR b."transactionStatus" = 'failed') AS failed
  FROM ${BILLINGS} AS b, clock WHERE b."timestamp" < clock.t AND b."planId" IS NOT NULL
),
firsts AS (
  SELECT DISTINCT ON (chain, "subscriptionId") chain, "subscriptionId", "planId", token, amount, inexact_amounts,
         (${epoch('"cycleEnd"')} - ${epoch('"cycleStart"')} + 1)::BIGINT AS period
  FROM billed WHERE paid ORDER BY chain, "subscriptionId", "timestamp"
),
terms AS (
  SELECT f.*, a.started, a."paidThrough", a."lastPaidCycle", a."lastAttempt"
  FROM firsts AS f JOIN (
    SELECT chain, "subscriptionId",
           min("timestamp") FILTER (WHERE paid) AS started,
           max("cycleEnd") FILTER (WHERE paid) AS "paidThrough",
           max("cycleStart") FILTER (WHERE paid) AS "lastPaidCycle",
           max("timestamp") FILTER (WHERE paid OR failed) AS "lastAttempt"
    FROM billed GROUP BY chain, "subscriptionId") AS a USING (chain, "subscriptionId")
),
dunning AS (
  SELECT t.chain, t."subscriptionId", count(*) FILTER (WHERE b.failed AND b."cycleStart" > t."lastPaidCycle")::INTEGER AS "failedAttempts"
  FROM terms AS t JOIN billed AS b USING (chain, "subscriptionId") GROUP BY t.chain, t."subscriptionId"
),
cancelled AS (
  SELECT DISTINCT ON (c.chain, c."subscriptionId") c.chain, c."subscriptionId", c."timestamp" AS "cancelledAt", c.forced
  FROM ${CANCELLATIONS} AS c, clock WHERE c."transactionStatus" = 'confirmed' AND c."timestamp" < clock.t
  ORDER BY c.chain, c."subscriptionId", c."timestamp"
),
quotient AS (
  SELECT *,
    CASE WHEN days BETWEEN 28 AND 31 THEN 1 WHEN days BETWEEN 56 AND 62 THEN 2 WHEN days BETWEEN 84 AND 92 THEN 3
         WHEN days BETWEEN 168 AND 184 THEN 6 WHEN days BETWEEN 360 AND 366 THEN 12 END AS m
  FROM (SELECT *, round(period / 86400.0)::BIGINT AS days, amount * 1000000000000000000 AS atto FROM terms) AS t
),
exact AS (
  SELECT *, div(num, den) AS q, mod(num, den) AS r, den AS d
  FROM (SELECT *, CASE WHEN m IS NOT NULL THEN atto ELSE atto * 2629746 END AS num, CASE WHEN m IS NOT NULL THEN m ELSE period END::NUMERIC AS den FROM quotient) AS x
),
ledger AS (
  SELECT e.chain, e."subscriptionId", e."planId", e.token,
         CASE WHEN e.inexact_amounts ? 'amount' THEN ${store}.payrec_inexact('subscription ' || e."subscriptionId" || ': its amount is not a decimal (' || (e.inexact_amounts ->> 'amount') || '), so its mrr cannot be exact (SELECT * FROM inexact_amounts)', e.amount) ELSE e.amount END AS amount,
         e.period,
         CASE WHEN e.inexact_amounts ? 'amount' THEN ${store}.payrec_inexact('subscription ' || e."subscriptionId" || ': its amount is not a decimal (' || (e.inexact_amounts ->> 'amount') || '), so its mrr cannot be exact (SELECT * FROM inexact_amounts)', e.amount)
              ELSE (q + CASE WHEN 2 * r > d OR (2 * r = d AND mod(q, 2) = 1) THEN 1 ELSE 0 END) * 0.000000000000000001 END AS mrr,
         e.started, e."paidThrough", e."lastAttempt", coalesce(d."failedAttempts", 0) AS "failedAttempts", c."cancelledAt", c.forced,
         -- A forced cancellation ends it at once; one by its customer when its paid period ends.
         CASE WHEN c."cancelledAt" IS NULL THEN NULL WHEN c.forced THEN c."cancelledAt" ELSE greatest(e."paidThrough", c."cancelledAt") END AS "endsAt",
         CASE WHEN c."cancelledAt" IS NOT NULL THEN (CASE WHEN c.forced OR clock.t > e."paidThrough" THEN 'cancelled' ELSE 'active' END)
              WHEN clock.t <= e."paidThrough" THEN 'active'
              WHEN ${epoch('clock.t')} <= ${epoch('e."paidThrough"')} + ${GRACE_SECONDS} THEN 'past_due'
              ELSE 'lapsed' END AS state,
         clock.t AS t
  FROM exact AS e CROSS JOIN clock LEFT JOIN dunning AS d USING (chain, "subscriptionId") LEFT JOIN cancelled AS c USING (chain, "subscriptionId")
)
SELECT chain, "subscriptionId", "planId", token, amount, period, mrr, started, "paidThrough", "lastAttempt", "failedAttempts", "cancelledAt", forced, "endsAt",
       CASE WHEN state IN ('past_due', 'lapsed') THEN div(${epoch('t')}::BIGINT - ${epoch('"paidThrough"')}::BIGINT - 1, 86400)::BIGINT END AS "daysPastDue",
       state
FROM ledger`;
}
