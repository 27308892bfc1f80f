import type { Command } from 'commander';
import { offerColumns } from '../command-reference/declared-columns.js';
import type { CommandAction } from '../core/runtime/action.js';
import { rpcInEffect } from '../core/config/settings.js';
import { EXIT, PayrecError, UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { validateColumns } from '../core/output/writer.js';
import type { FeedReader } from '../chain/feeds.js';
import { addRowGateOptions, parseRowGates, printRows, type GateFlags } from '../core/lists/list-gates.js';
import { readRatesFile } from '../values/currency-flags.js';
import { topCommand } from './tree.js';

// `payrec rates …` (DESIGN.md "Values in one currency"): the rates --currency reads.
// `feeds` shows the Chainlink feed of each token on the chain and what it answers now;
// `check FILE` is the auditor's re-check of every Chainlink rate of a rates file.

const FEED_COLUMNS = ['token', 'pair', 'feed', 'status', 'description', 'decimals', 'phase', 'round', 'rate', 'updatedAt', 'problem'] as const;
const CHECK_COLUMNS = ['line', 'token', 'currency', 'time', 'rate', 'feed', 'round', 'until', 'verdict', 'problem'] as const;

const NODE_HINT = 'give --rpc URL, set PAYREC_RPC_URL, or store it for this profile and chain: payrec config set rpc URL (try it with: payrec --emulator rates feeds)';

export function addRatesCommands(program: Command, action: CommandAction): void {
  const rates = topCommand(program, 'rates');
  const feeds = offerColumns(rates.command('feeds'), FEED_COLUMNS)
    .description("The Chainlink feed of each token on --chain (ONCHAIN §10, or config set feed), checked and read now: its description, decimals and latest round")
    .addHelpText('after', ['', 'Examples:', '  $ payrec rates feeds', '  $ payrec --chain ethereum rates feeds -f json', '', 'The node comes from --rpc, PAYREC_RPC_URL or payrec config set rpc (--emulator needs none).', ''].join('\n'))
    .action(action((session, cmd) => listFeeds(session, cmd.opts() as GateFlags), { output: true }));
  addRowGateOptions(feeds);
  const check = offerColumns(rates.command('check'), CHECK_COLUMNS)
    .description("Re-read on chain every Chainlink rate of a rates file (payrec rates -f csv): its round, and the round after it that ends its validity; exit 9 on any difference")
    .argument('<file>', 'a rates file (CSV: time,chain,token,currency,rate,source) whose Chainlink rates name their round in source')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ payrec rates check rates.csv',
        '  $ payrec --chain ethereum rates check rates.csv -f csv -o checked.csv',
        '',
        'A rate is the same when its round answers it (answer ÷ 10^decimals of its phase), was written',
        'at the row\'s time, and no later round had replaced it by then; until is when the next round',
        'replaced it (empty for the latest). Rows of another chain\'s feeds need that chain\'s node',
        '(--chain); rows from elsewhere than Chainlink (a team\'s rate, a peg) have nothing on chain to check.',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => checkRates(session, cmd.args[0] as string, cmd.opts() as GateFlags), { output: true }));
  addRowGateOptions(check);
}

/** The chain's feeds read through its node: exit 2 when none is set. */
async function openReader(session: Session): Promise<FeedReader> {
  const s = await session.settings();
  const { url } = await rpcInEffect(s, session.store);
  if (!url) throw new UsageError(`reading Chainlink's feeds needs a ${s.chain} JSON-RPC node: none is set`, NODE_HINT);
  return (await import('../chain/open-verifier.js')).openFeedReader(session, url);
}

async function listFeeds(session: Session, flags: GateFlags): Promise<void> {
  const output = session.output('list', FEED_COLUMNS);
  if (output.columns) validateColumns(output.columns, [...FEED_COLUMNS]);
  const gates = await parseRowGates(flags, session.format);
  const reader = await openReader(session);
  const { feedRows } = await import('../chain/feed-status.js');
    // Old as the chain counts: from its latest block's time.
  const head = await reader.client.block('latest');
  const now = head ? Number(head.timestamp) : Math.floor(session.ctx.now() / 1000);
  await printRows(session, output, gates, (await feedRows(reader, now)).map((r) => ({ ...r })), 'feed');
}

async function checkRates(session: Session, path: string, flags: GateFlags): Promise<void> {
  const output = session.output('list', CHECK_COLUMNS);
  if (output.columns) validateColumns(output.columns, [...CHECK_COLUMNS]);
  const gates = await parseRowGates(flags, session.format);
  const file = await readRatesFile(path, 'rates check');
  const reader = await openReader(session);
  const { auditRates } = await import('../chain/feed-audit.js');
  const audit = await auditRates(reader, file.rows);
  const rows = audit.rates.map((r) => ({ line: r.line, token: r.token, currency: r.currency, time: r.time, rate: r.rate, feed: r.feed, round: r.round, until: r.until ?? null, verdict: r.verdict, problem: r.problem }));
  await printRows(session, output, gates, rows, 'rate');
  const unchecked = audit.rates.filter((r) => r.verdict === 'not checked');
  if (audit.others > 0) session.note(`${audit.others.toLocaleString('en-US')} row${audit.others === 1 ? ' is' : 's are'} not a Chainlink rate (a team's rate, a peg): nothing on chain to check`);
  if (unchecked.length > 0) session.note(`${unchecked.length.toLocaleString('en-US')} Chainlink rate${unchecked.length === 1 ? ' is' : 's are'} of another chain's feeds, not checked: ${[...new Set(unchecked.map((r) => r.problem))].join('; ')}`);
  const differing = audit.rates.filter((r) => r.verdict === 'differs');
  if (differing.length > 0) {
    const [first] = differing;
    const more = differing.length - 1;
    throw new PayrecError(
      `${differing.length.toLocaleString('en-US')} rate${differing.length === 1 ? ' differs' : 's differ'} from the chain: ${file.name}:${first.line}: ${first.problem}${more > 0 ? `; and ${differing.slice(1, 11).map((r) => `${file.name}:${r.line}`).join(', ')}${more > 10 ? ` and ${more - 10} more` : ''}` : ''}`,
      EXIT.gate,
      'the problem column says what differs on each line',
    );
  }
  if (audit.rates.length === 0) session.note(`${file.name} holds no Chainlink rate: nothing was checked`);
}
