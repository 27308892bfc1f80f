import type { Session } from '../runtime/session.js';
import { terminalJson } from '../output/sanitize.js';
import { createWriter, type RecordWriter } from '../output/writer.js';
import type { OutputOptions } from '../output/options.js';
import { formatRow, type Format } from '../output/formats.js';
import { TextSink } from '../output/text-sink.js';
import type { JqFilter } from '../output/jq.js';
import { ChartBuilder } from './chart.js';
import type { PageEnricher } from './enrich.js';
import type { ListQuery, MergedList } from './list-query.js';
import { amountFields, Summariser } from './summary.js';
import type { Endpoint } from '../../registry/types.js';

// The last step of a list (walk → enrich → gate → render): the records the gates let
// through, as records in the chosen format, a summary, a chart, a count, or jq's answer
// over the document -f json would print; to stdout or -o's file, committed at the end.

export class ListRender {
  private readonly summary?: Summariser;
  private readonly chart?: ChartBuilder;
  private readonly writer?: RecordWriter;
  /** --jq reads the document -f json would print, then prints jq's answer in its place. */
  private readonly json?: TextSink;
  /**
   * An enricher's source that fails half-way leaves nothing half printed: enriched output
   * is held until the walk ends, unless it goes to a file renamed into place at the end
   * (-o FILE), which a failed run never shows (300,000 valued rows held cost 200 MB).
   */
  private readonly held?: TextSink;
  private readonly out: NodeJS.WritableStream;

  private constructor(
    private readonly session: Session,
    private readonly q: ListQuery,
    private readonly options: OutputOptions,
    private readonly target: Awaited<ReturnType<Session['openOutput']>>,
    private readonly jq: JqFilter | undefined,
    private readonly enrichers: readonly PageEnricher[],
    endpoint: Endpoint | MergedList,
  ) {
    this.summary = q.summary ? new Summariser(endpoint, enrichers.flatMap((e) => e.totals ?? [])) : undefined;
    this.chart = q.chart ? new ChartBuilder(q.chart.period, q.chart.token, q.chart.zone, amountFields(endpoint.record)) : undefined;
    this.json = jq ? new TextSink() : undefined;
    this.held = enrichers.length > 0 && !this.json && !target.atomic ? new TextSink() : undefined;
    this.out = this.json ?? this.held ?? target.stream;
    this.writer = this.summary || this.chart || q.count ? undefined : createWriter(this.out, jq ? { ...options, format: 'json', tty: false } : options);
  }

  /** Opens the output (stdout, or -o's file): an unwritable --output fails before the walk. */
  static async open(session: Session, endpoint: Endpoint | MergedList, q: ListQuery, options: OutputOptions, jq: JqFilter | undefined, enrichers: readonly PageEnricher[]): Promise<ListRender> {
    return new ListRender(session, q, options, await session.openOutput(), jq, enrichers, endpoint);
  }

  /** What became of the records, for the notes after the gates. */
  get shown(): 'showing' | 'summarised' | 'charted' | 'counted' {
    return this.summary ? 'summarised' : this.chart ? 'charted' : this.writer ? 'showing' : 'counted';
  }

  /** One record; a promise means: wait before the next (the output's backpressure). */
  add(record: Record<string, unknown>): void | Promise<void> {
    if (this.summary) this.summary.add(record);
    else if (this.chart) this.chart.add(record);
    else if (this.writer) return this.writer.write(record);
  }

  /** Ends the output: `count` records were taken. */
  async end(count: number): Promise<void> {
    const format = this.jq ? 'json' : this.session.format;
    if (this.writer) await this.writer.end();
    if (this.summary) await writeSummary(this.session, this.out, this.summary, format, this.enrichers);
    if (this.chart) await writeChart(this.session, this.out, this.chart, format, this.options.tty);
    if (this.q.count) this.out.write(`${count}\n`);
    if (this.jq) this.target.stream.write(this.jq.run(this.json!.text(), this.options.tty));
    if (this.held) this.target.stream.write(this.held.bytes());
    await this.target.commit();
  }
}

/** Rows of payrec's own making (a summary's, a chart's) in `format`, their columns as named. */
async function writeRows(session: Session, out: NodeJS.WritableStream, format: Format, records: Record<string, unknown>[], kind: 'list' | 'single', columns: string[]): Promise<void> {
  const writer = createWriter(out, { ...session.output(kind, columns), format, columns: undefined, flatten: undefined, literalColumns: true });
  for (const r of records) await writer.write(r);
  await writer.end();
}

/** A chart: bars in a table's place (a terminal or a pipe), its series as rows in every other format. */
async function writeChart(session: Session, out: NodeJS.WritableStream, chart: ChartBuilder, format: Format, tty: boolean): Promise<void> {
  if (formatRow(format).shape === 'view') out.write(chart.render(session.ctx.columns, session.color && tty));
  else await writeRows(session, out, format, chart.series(), 'list', chart.columns());
}

/**
 * Prints a summary. json/jsonl: the whole summary (totals as rows), with what each
 * enricher counted (`verdicts`). Rows (csv, xlsx): the totals, one row per token and status
 * with the endpoint's fixed columns. table: the counts as field/value lines, then the
 * totals as a table whose status column says what each total holds.
 */
async function writeSummary(session: Session, out: NodeJS.WritableStream, s: Summariser, format: Format, enrichers: readonly PageEnricher[]): Promise<void> {
  const counted = enrichers.flatMap((e) => (e.summary ? [e.summary] : []));
  const amounts = counted.flatMap((c) => (c.amounts ? [{ label: c.label, key: c.amounts.key, of: c.amounts.of() }] : []));
  const result = { ...s.result(), ...Object.fromEntries(counted.map((c) => [c.key, c.counts])), ...Object.fromEntries(amounts.map((a) => [a.key, a.of])) };
  const columns = ['token', 'status', 'count', ...s.fields, ...s.across];
  const shape = formatRow(format).shape;
  if (shape === 'document') {
    // Token names are the server's text: escaped like every JSON we print.
    out.write(terminalJson(result, format === 'json' ? 2 : undefined) + '\n');
    return;
  }
  const rows = (records: Record<string, unknown>[], kind: 'list' | 'single', cols: string[]) => writeRows(session, out, format, records, kind, cols);
  // A format of rows holds one table: the totals.
  if (shape === 'rows') return rows(result.totals, 'list', columns);
  const overview: Record<string, unknown> = { count: result.count };
  if (result.firstTimestamp !== undefined) {
    // Named so that tables show them as dates.
    overview['first.timestamp'] = result.firstTimestamp;
    overview['last.timestamp'] = result.lastTimestamp;
  }
  for (const [status, n] of Object.entries(result.statuses)) overview[`status.${status}`] = n;
  if (result.forced !== undefined) overview.forced = result.forced;
  for (const c of counted) for (const [name, n] of Object.entries(c.counts)) overview[`${c.label}.${name}`] = n;
  for (const a of amounts) for (const [name, byToken] of Object.entries(a.of)) for (const [token, amount] of Object.entries(byToken)) overview[`${a.label}.${name}.amount.${token}`] = amount;
  await rows([overview], 'single', Object.keys(overview));
  if (result.totals.length === 0) return;
  out.write(`\nexact totals per token and status${s.successSignal ? ' (a billing failed: success is not 1 or status failed)' : ''}:\n`);
  await rows(result.totals, 'list', columns);
}
