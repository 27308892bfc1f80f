import { feeOf, fromUnits, toUnits } from './chain/amounts.js';
import type { Random } from './prng.js';

// Realistic field values: ids, addresses, amounts, statuses and free text, including the
// hostile text a client must print safely (escapes, RTL, newlines, CSV and formula traps).

export const hexId = (r: Random): string => `0x${r.hex(64)}`;

/**
 * A bijection of 32-bit integers (murmur3's finaliser: each step is invertible), so
 * distinct indexes give distinct values that still look random.
 */
function permute32(n: number): number {
  let h = n >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A hex id unique to the index-th record of its collection: random, but its last 8
 * digits encode the index one-to-one. Seeds are 32-bit, so across a million records
 * two random streams coincide now and then; an identity (a transaction hash, a
 * payment id) must not. Draws as much from `r` as hexId, so other fields stay as they were.
 */
export function uniqueHexId(r: Random, index: number): string {
  return `0x${r.hex(64).slice(0, 56)}${permute32(index).toString(16).padStart(8, '0')}`;
}

/** Mixed case, as checksummed addresses are, so case-insensitive matching is exercised. */
export function address(r: Random): string {
  let out = '0x';
  for (const c of r.hex(40)) out += c >= 'a' && r.chance(0.5) ? c.toUpperCase() : c;
  return out;
}

export function uuid(r: Random, index?: number): string {
  const h = r.hex(32);
  const variant = '89ab'[r.int(0, 3)];
  // With an index, the last 8 digits encode it one-to-one (see uniqueHexId).
  const tail = index === undefined ? h.slice(20, 32) : h.slice(20, 24) + permute32(index).toString(16).padStart(8, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${tail}`;
}

/** Fraction digits without trailing zeros ('' when all are zero). */
function fraction(r: Random, max: number): string {
  return r.digits(r.int(0, max)).replace(/0+$/, '');
}

/**
 * A token amount as a decimal string, with no more decimals than the token has on its
 * chain (`decimals`; USDT has 6 on ethereum): mostly everyday values, sometimes dust,
 * and now and then a 9–14 digit integer part, with its decimals beyond what a double
 * holds. Every value fits DECIMAL(38,18), and so do the totals of millions of them (the
 * mirror's SUM); larger ones come only under the drift fault.
 */
export function amount(r: Random, decimals = 18): string {
  const roll = r.float();
  let whole: string;
  // The same draws as ever (so every other field keeps its value), cut to 9–14 digits.
  if (roll < 0.04) {
    const digits = r.digits(r.int(25, 30), true);
    whole = digits[0] + digits.slice(17);
  } else if (roll < 0.14) whole = '0';
  else whole = String(r.int(1, 9999));
  let frac = fraction(r, 18);
  if (whole === '0' && frac === '') frac = `${r.digits(r.int(0, 17))}${r.int(1, 9)}`;
  return inDecimals(frac === '' ? whole : `${whole}.${frac}`, decimals);
}

/**
 * `value` with the digits beyond the token's `decimals` cut (the chain holds none); dust
 * finer than the token's smallest unit becomes that unit, so an amount stays non-zero.
 */
export function inDecimals(value: string, decimals: number): string {
  const [whole, frac = ''] = value.split('.');
  if (frac.length <= decimals) return value;
  const cut = frac.slice(0, decimals).replace(/0+$/, '');
  if (cut !== '') return `${whole}.${cut}`;
  return whole !== '0' ? whole : `0.${'0'.repeat(decimals - 1)}1`;
}

/** A wallet-to-wallet payment's service fee: small, often a fraction of a unit. */
export function serviceFee(r: Random): string {
  const whole = r.chance(0.8) ? '0' : String(r.int(1, 20));
  const frac = `${r.digits(r.int(1, 17))}${r.int(1, 9)}`;
  return `${whole}.${frac}`;
}

/**
 * Takes the draws a fee took when the emulator's fees were random, so every field drawn
 * after it keeps its value; the fee itself is `contractFee`.
 */
export function skipFeeDraws(r: Random): void {
  serviceFee(r);
}

/** 8pay's base fee, in hundredths of a percent (ONCHAIN.md §2): an account's unless it has its own. */
export const BASE_FEE_PERCENTAGE = 100n;

/**
 * The fee 8pay's Transfers contract takes on `amount` (a decimal string with at most
 * `decimals` digits after the point) at `feePercentage` hundredths of a percent:
 * floor(amount × feePercentage / 10000) in the token's smallest unit (ONCHAIN.md §2).
 */
export function contractFee(amount: string, decimals: number, feePercentage: bigint): string {
  return fromUnits(feeOf(toUnits(amount, decimals), feePercentage), decimals);
}

export function transactionStatus(r: Random): string {
  const roll = r.float();
  if (roll < 0.9) return 'confirmed';
  return roll < 0.96 ? 'pending' : 'failed';
}

export const TOKENS_BY_CHAIN: Record<string, readonly string[]> = {
  bsc: ['USDT', 'BUSD', '8PAY', 'BNB', 'USDC'],
  ethereum: ['ETH', 'USDT', 'USDC', 'DAI', '8PAY'],
  polygon: ['MATIC', 'USDT', 'USDC', '8PAY', 'DAI'],
  sandbox: ['USDT', 'BUSD', '8PAY', 'BNB', 'USDC'],
};

/** Text that breaks naive output: each line targets a different mistake. */
export const HOSTILE_TEXT: readonly string[] = [
  'Café ☕ & croissant 🥐',
  'اشتراك شهري',
  'מנוי חודשי',
  'Invoice, "final", v2',
  'Line one\nLine two',
  '\u001b[31mRED ALERT\u001b[0m',
  '\u001b]0;pwned\u0007Renamed window',
  '=HYPERLINK("http://example.com","click")',
  '+1-555-0100',
  '@SUM(A1:A9)',
  '-2+3',
  'tab\tseparated',
  '\u202eevil.exe\u202c',
  '👨‍👩‍👧‍👦 family plan',
];

export const DESCRIPTIONS: readonly string[] = [
  'Ebook', 'Monthly membership', 'Pro plan', 'Coffee beans 1kg', 'Consulting hour', 'Concert ticket',
  'Donation', 'Cloud storage', 'Online course', 'Newsletter', 'Gym access', 'Domain renewal',
];

export const CATEGORIES: readonly string[] = ['Shop', 'Services', 'Donation', 'Subscription', 'Food & Drink', 'Education'];

export const TAGS: readonly string[] = [
  'ebook_859294', 'order_1001', 'order_1002', 'invoice-2025-07', 'spring_sale', 'vip', 'referral_42', 'b2b',
];

/** Tags that are hostile yet still valid filter values (no control characters). */
export const HOSTILE_TAGS: readonly string[] = ['promo,"spring"', '🎁gift', '=1+1', '@home', 'שלום'];

export const EMAILS: readonly string[] = [
  'ana@example.com', 'bo.li@example.org', 'chris+shop@example.net', 'dana@example.com',
  'eli@example.io', 'fatima@example.org', 'gus@example.com', 'hana@example.net',
];

/** Everyday text most of the time, hostile text in about one record out of ten. */
export function freeText(r: Random, everyday: readonly string[]): string {
  return r.chance(0.1) ? r.pick(HOSTILE_TEXT) : r.pick(everyday);
}

export function tag(r: Random): string {
  return r.chance(0.1) ? r.pick(HOSTILE_TAGS) : r.pick(TAGS);
}

/** The hidden form of an email, as the API returns it. */
export const HIDDEN_EMAIL = '********';
