import { isDumbTerminal, type Session } from '../runtime/session.js';
import { grouped } from './grouped.js';

// One progress line on stderr for long exports: records fetched of total, rate, ETA.
// Only for a person at a terminal, never with --quiet; ora is loaded only then.

type Spinner = { text: string; stop(): void };

export class Progress {
  private spinner?: Spinner;
  private loading?: Promise<void>;
  /** Set by stop(): a spinner still loading then never starts (it would keep the process alive). */
  private stopped = false;
  private readonly started = performance.now();

  constructor(
    session: Session,
    enabled: boolean,
    /** What is being fetched, shown first (`one_time_transfers: 1,000 of …`). */
    private readonly label?: string,
    /** What is counted: records, or rounds of a feed. */
    private readonly unit = 'records',
  ) {
    if (!enabled || session.quiet || !session.ctx.stderrIsTTY || isDumbTerminal(session.ctx.env)) return;
    // A terminal of unknown size (a pty nobody sized, as under `script` in CI) reports
    // 0 columns, and ora divides by the width: it would clear lines forever.
    if (!(session.ctx.stderr as { columns?: number }).columns) return;
    this.loading = import('ora').then(({ default: ora }) => {
      if (this.stopped) return;
      // Enabled on this terminal whatever CI says: ora would print each frame as a line where CI is set (a job's log on a pty).
      this.spinner = ora({ stream: session.ctx.stderr as NodeJS.WritableStream & { isTTY?: boolean }, discardStdin: false, isEnabled: true }).start('fetching…');
    });
  }

  async update(done: number, total: number): Promise<void> {
    if (!this.loading) return;
    await this.loading;
    if (!this.spinner) return;
    const seconds = (performance.now() - this.started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 && total > done ? ` · ETA ${Math.ceil((total - done) / rate)} s` : '';
    this.spinner!.text = `${this.label ? `${this.label}: ` : ''}${grouped(done)} of ${grouped(total)} ${this.unit} · ${grouped(Math.round(rate))}/s${eta}`;
  }

  stop(): void {
    this.stopped = true;
    this.spinner?.stop();
  }
}
