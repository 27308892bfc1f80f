// Exact decimal arithmetic for tests' expected values (BigInt, written here, never
// payrec's): a plain decimal as a fraction, and a fraction rounded half to even at 18 places.

/** num/den of a plain decimal. */
export function frac(text: string): [bigint, bigint] {
  const [w, f = ''] = text.split('.');
  return [BigInt(w + f), 10n ** BigInt(f.length)];
}

/** n/d rounded half to even at 18 places, printed without padding zeros. */
export function atto(n: bigint, d: bigint): string {
  const t = n * 10n ** 18n;
  let q = t / d;
  const r2 = (t % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n === 1n)) q += 1n;
  const s = q.toString().padStart(19, '0');
  return `${s.slice(0, -18)}.${s.slice(-18)}`.replace(/0+$/, '').replace(/\.$/, '');
}
