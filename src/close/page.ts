import { column } from '../core/output/rows.js';
import { escapeHtml, PAGE_END, pageStart, TABLE_END, tableHead, tableRow } from '../core/output/html.js';
import type { CloseReport, Waterfall } from './compose.js';

// The close as one self-contained page (core/output/html.ts): the cover, an MRR
// waterfall per token as inline SVG (start, new, reactivated, churned, end, each bar
// labelled with its exact figure; in a currency one across tokens, with fx before end),
// then every part's table. Bars are drawn to scale
// with floating point; every figure written is the engine's exact text.

const WIDTH = 720;
const HEIGHT = 260;
const TOP = 30;
const BOTTOM = 40;
const LEFT = 20;

/** The steps of a waterfall: a total, or a change that moves the running total up or down. */
function stepsOf(w: Waterfall): { kind: string; label: string; figure: string; from: number; to: number; total: boolean }[] {
  const start = Number(w.start);
  const afterNew = start + Number(w.new);
  const afterReactivated = afterNew + Number(w.reactivated);
  const afterChurned = afterReactivated - Number(w.churned);
  const end = Number(w.end);
  // In a currency, the change of rates moves the total too (mrr_fx, signed), between churned and end.
  const fx = w.fx === undefined ? [] : [{ kind: 'fx', label: 'fx', figure: w.fx, from: afterChurned, to: afterChurned + Number(w.fx), total: false }];
  return [
    { kind: 'start', label: 'start', figure: w.start, from: 0, to: start, total: true },
    { kind: 'new', label: 'new', figure: w.new, from: start, to: afterNew, total: false },
    { kind: 'reactivated', label: 'reactivated', figure: w.reactivated, from: afterNew, to: afterReactivated, total: false },
    { kind: 'churned', label: 'churned', figure: `-${w.churned}`.replace(/^-(0(\.0+)?)$/, '$1'), from: afterReactivated, to: afterChurned, total: false },
    ...fx,
    { kind: 'end', label: 'end', figure: w.end, from: 0, to: end, total: true },
  ];
}

const COLOURS: Record<string, string> = { start: '#5470c6', end: '#5470c6', new: '#3ba272', reactivated: '#91cc75', churned: '#ee6666', fx: '#fac858' };

/** One token's waterfall as inline SVG: each bar a <g data-kind> with its figure as text. */
export function waterfallSvg(w: Waterfall): string {
  const steps = stepsOf(w);
  const high = Math.max(1e-30, ...steps.flatMap((s) => [s.from, s.to]));
  const y = (v: number) => TOP + (HEIGHT - TOP - BOTTOM) * (1 - v / high);
  const slot = (WIDTH - LEFT * 2) / steps.length;
  const bars = steps.map((s, i) => {
    const x = LEFT + i * slot + slot * 0.15;
    const top = y(Math.max(s.from, s.to));
    const height = Math.max(1, Math.abs(y(s.from) - y(s.to)));
    return (
      `<g class="step" data-kind="${s.kind}"><rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${height.toFixed(1)}" fill="${COLOURS[s.kind]}"/>` +
      `<text class="figure" x="${(x + slot * 0.35).toFixed(1)}" y="${(top - 6).toFixed(1)}" text-anchor="middle" font-size="12">${escapeHtml(s.figure)}</text>` +
      `<text class="label" x="${(x + slot * 0.35).toFixed(1)}" y="${HEIGHT - BOTTOM + 18}" text-anchor="middle" font-size="12">${s.label}</text></g>`
    );
  });
  const title = w.currency === undefined ? `MRR of ${w.token}, ${w.period}` : `MRR in ${w.currency}${w.token === '*' ? ' (every token)' : ` of ${w.token}`}, ${w.period}`;
  return (
    `<svg role="img" aria-label="${escapeHtml(title)}" data-token="${escapeHtml(w.token)}"${w.currency === undefined ? '' : ` data-currency="${escapeHtml(w.currency)}"`} width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">` +
    `<title>${escapeHtml(title)}</title><line x1="${LEFT}" x2="${WIDTH - LEFT}" y1="${y(0)}" y2="${y(0)}" stroke="#999"/>${bars.join('')}</svg>\n`
  );
}

/** The page is written in chunks of about this many characters, waiting for `out` to take each. */
const CHUNK_CHARS = 1 << 20;

/** Writes the page to `out` (ended when complete), a chunk at a time: its tables can hold every transfer of a month. */
export async function writePage(out: NodeJS.WritableStream, report: CloseReport): Promise<void> {
  let failure: Error | undefined;
  out.once('error', (err: Error) => (failure ??= err));
  let chunk = '';
  /** Adds text to the chunk; the promise, when there is one, waits for `out` to take a full chunk. */
  const write = (text: string): Promise<unknown> | void => {
    chunk += text;
    if (chunk.length < CHUNK_CHARS) return;
    if (failure) throw failure;
    const full = chunk;
    chunk = '';
    if (!out.write(full)) return new Promise((resolve) => out.once('drain', resolve));
  };
  const title = report.cover.find((l) => l.item === 'period')?.value ?? '';
  await write(pageStart(`Close of ${title}`) + `<h1>Close of ${escapeHtml(title)}</h1>\n<section id="cover"><table class="cover"><tbody>\n`);
  for (const l of report.cover) await write(`<tr><th>${escapeHtml(l.item)}</th><td>${escapeHtml(l.value)}</td></tr>\n`);
  await write('</tbody></table></section>\n<section id="waterfalls"><h2>MRR movements</h2>\n');
  if (report.waterfalls.length === 0) await write('<p>No subscription was counted in this period.</p>\n');
  for (const w of report.waterfalls) await write(`<h3>${escapeHtml(w.currency === undefined ? w.token : w.token === '*' ? `in ${w.currency}, every token` : `${w.token} in ${w.currency}`)}</h3>\n` + waterfallSvg(w));
  await write('</section>\n');
  for (const sheet of report.sheets) {
    const columns = sheet.columns.map((c) => ({ ...column(c.name.split('.')), kind: c.kind }));
    await write(`<section data-sheet="${escapeHtml(sheet.name)}"><h2>${escapeHtml(sheet.title)}</h2><p>${escapeHtml(`${sheet.count} rows: ${sheet.command}`)}</p>\n` + tableHead(columns));
    for await (const batch of sheet.rows) {
      for (const row of batch) {
        const wait = write(tableRow(columns, row, report.zone));
        if (wait) await wait;
      }
    }
    await write(TABLE_END + '</section>\n');
  }
  await new Promise<void>((resolve, reject) => {
    if (failure) return reject(failure);
    out.once('error', reject);
    out.end(chunk + PAGE_END, () => resolve());
  });
}
