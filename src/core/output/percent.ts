// How a ratio reads in tables, pages and workbooks' text: one rule for every place that shows one.

/** A ratio (a fraction of 8 places) as tables show it: the same digits as a percentage (0.66666667 → 66.666667%). */
export function percentText(fraction: string): string {
  const negative = fraction.startsWith('-');
  const [whole, places = ''] = fraction.replace('-', '').split('.');
  const rest = places.slice(2).replace(/0+$/, '');
  return `${negative ? '-' : ''}${BigInt(whole + places.slice(0, 2).padEnd(2, '0'))}${rest ? `.${rest}` : ''}%`;
}
