import Big from 'big.js';
import { formatUnits, keccak256, stringToHex } from 'viem';
import { valueAt, type ChainView, type Fact, type Subject } from './decode.js';
import { listedAddress, type ResolvedToken, type TokenBook } from './tokens.js';
import type { ChainSlug } from './model.js';

// The pure verdict rules (ONCHAIN.md §9): an API record, what the chain says about it
// (decode.ts) and the chain's head in; a verdict and the differences out, the rules
// applied in §9's order. Nothing is `verified` unless its own events, from 8pay's
// contracts, in a canonical block with enough confirmations, say what the API says.

import type { Verdict } from './verdict-names.js';

export { VERDICTS, BAD_VERDICTS, type Verdict } from './verdict-names.js';

export interface Difference {
  field: string;
  api: string | number | boolean | null;
  chain: string | number | boolean | null;
  /** What the values mean where they do not say it themselves: the reason of a verdict, a token's list symbol. */
  note?: string;
}

export interface Judgement {
  verdict: Verdict;
  /** head − blockNumber + 1; null without a receipt. */
  confirmations: number | null;
  blockNumber: number | null;
  blockHash: string | null;
  differences: Difference[];
}

export interface Judging {
  chain: ChainSlug;
  /** The chain's latest block number. */
  head: bigint;
  /** Confirmations a record needs (--confirmations). */
  confirmations: number;
  tokens: TokenBook;
}

export function judge(subject: Subject, view: ChainView, o: Judging): Judgement {
  const status = valueAt(subject.record, subject.receiver === undefined ? 'transactionStatus' : `receivers[${subject.receiver}].transactionStatus`);
  const none = { confirmations: null, blockNumber: null, blockHash: null, differences: [] };
  if (status === 'pending') return { verdict: 'pending', ...none };
  const receipt = view.receipt;
  if (!receipt) {
    const note = view.transactionAtNode === undefined ? 'no receipt at the node' : view.transactionAtNode ? 'no receipt: the node has the transaction, not yet mined' : 'no receipt, no transaction at the node';
    return { verdict: 'missing', ...none, differences: [{ field: 'receipt', api: 'mined', chain: null, note }] };
  }
  const confirmations = o.head - receipt.blockNumber + 1n;
  const mined = { confirmations: Number(confirmations > 0n ? confirmations : 0n), blockNumber: Number(receipt.blockNumber), blockHash: receipt.blockHash };
  const reverted = receipt.status === 'reverted';
  const spoofed = view.events.some((e) => e.found === 'spoofed');
  // Differences of mined, non-reverted, non-spoofed transactions of confirmed records (§9):
  // an unconfirmed or reorged record lists them too.
  const differences: Difference[] = [];
  if (!reverted && !spoofed) {
    if (status !== 'confirmed') differences.push({ field: 'transactionStatus', api: printed(status), chain: 'confirmed' });
    if (status !== 'failed') differences.push(...compare(subject, view, o));
  }
  // A failed record's reverted transaction: sent to 8pay's contract by the record's sender (rule 5), else the `to`/`from` that differ.
  if (reverted && status === 'failed') differences.push(...compare(subject, view, o));
  // Each bad verdict says why first, then the fields that differ (§9's rules, in order).
  const judged = (verdict: Verdict, ...why: Difference[]): Judgement => ({ verdict, ...mined, differences: [...why, ...differences] });
  if (view.canonicalHash === null || view.canonicalHash !== receipt.blockHash) {
    return judged('reorged', { field: 'blockHash', api: receipt.blockHash, chain: view.canonicalHash, note: `the receipt's block is not the canonical one at height ${receipt.blockNumber}` });
  }
  if (confirmations < BigInt(o.confirmations)) {
    return judged('unconfirmed', { field: 'confirmations', api: o.confirmations, chain: mined.confirmations, note: `fewer than the ${o.confirmations} a record needs` });
  }
  if (reverted) {
    if (status !== 'failed') return judged('reverted', { field: 'transactionStatus', api: printed(status), chain: 'reverted', note: 'the receipt\'s status is 0x0' });
    return judged(differences.length > 0 ? 'mismatch' : 'verified');
  }
  if (spoofed) {
    return judged('spoofed', ...view.events.filter((e) => e.found === 'spoofed').map((e): Difference => ({ field: `${e.name} emitter`, api: e.emitter?.expected ?? null, chain: e.emitter?.chain ?? null, note: "emitted by a look-alike, not by 8pay's contract" })));
  }
  return judged(differences.length > 0 ? 'mismatch' : 'verified');
}

function printed(v: unknown): string | number | boolean | null {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : v === undefined || v === null ? null : JSON.stringify(v);
}

/** Every expected event that is absent, then every fact that says something else than the API. */
function compare(subject: Subject, view: ChainView, o: Judging): Difference[] {
  const out: Difference[] = view.events.filter((e) => e.found === 'absent').map((e) => ({ field: 'event', api: e.name, chain: null }));
  for (const fact of view.facts) {
    const d = differs(subject, fact, o);
    // Two events can say one field (a one-time receiver's amount: its Receiver and its leg): one difference said once.
    if (d && !out.some((x) => x.field === d.field && x.api === d.api && x.chain === d.chain)) out.push(d);
  }
  return out;
}

/** The API's value at a fact's field (the route's plan for planId); undefined when the API has none: not compared. */
function apiValue(subject: Subject, field: string): unknown {
  const v = valueAt(subject.record, field);
  return v === undefined && field === 'planId' ? subject.planId : v;
}

function differs(subject: Subject, fact: Fact, o: Judging): Difference | undefined {
  const { field } = fact;
  if (fact.kind === 'expected') return fact.chain === fact.expected ? undefined : { field, api: fact.expected, chain: fact.chain };
  // A one-time transfer's tag is its payment's (§7); a payment nobody knows has no tag to match.
  if (fact.kind === 'tag' && subject.paymentTag !== undefined) {
    const d = tagDiffers(field, subject.paymentTag, fact.chain);
    return d && subject.paymentTag === null && subject.noPayment ? { ...d, note: subject.noPayment } : d;
  }
  const api = apiValue(subject, field);
  if (api === undefined || api === null) return undefined;
  const d = (chain: Difference['chain']): Difference => ({ field, api: printed(api), chain });
  switch (fact.kind) {
    case 'address':
    case 'bytes32':
      return typeof api === 'string' && api.toLowerCase() === fact.chain ? undefined : d(fact.chain);
    case 'text':
      return api === fact.chain ? undefined : d(fact.chain);
    case 'tag':
      return tagDiffers(field, api, fact.chain);
    case 'number':
      return (typeof api === 'number' && Number.isSafeInteger(api) && BigInt(api) === fact.chain) ? undefined : d(Number(fact.chain));
    case 'boolean':
      return api === fact.chain ? undefined : d(fact.chain);
    case 'count':
      return Array.isArray(api) && api.length === fact.chain ? undefined : { field, api: Array.isArray(api) ? api.length : printed(api), chain: fact.chain };
    case 'token':
      return tokenDiffers(field, api, fact.chain, o);
    case 'amount':
      return amountDiffers(subject, field, api, fact.chain, fact.token, o);
  }
}

/** keccak256 of the API's UTF-8 tag against the chain's hash; no tag (null) differs. */
function tagDiffers(field: string, api: unknown, chain: string): Difference | undefined {
  const hash = typeof api === 'string' ? keccak256(stringToHex(api)) : undefined;
  return hash === chain ? undefined : { field, api: hash ?? printed(api), chain };
}

/** A token: the API's symbol by 8pay's list against the chain's address; a symbol the list does not know is a difference. */
function tokenDiffers(field: string, api: unknown, chain: string, o: Judging): Difference | undefined {
  const known = typeof api === 'string' ? o.tokens.get(api) : undefined;
  if (known && known.address === chain) {
    // The list's decimals are what amounts are read in: the contract must agree.
    if (known.chainDecimals !== undefined && known.chainDecimals !== known.decimals) return { field: `${field} decimals`, api: known.decimals, chain: known.chainDecimals };
    return undefined;
  }
  const listed = listedAddress(o.chain, chain);
  return listed ? { field, api: printed(api), chain, note: listed.listed } : { field, api: printed(api), chain, note: "not in 8pay's token list" };
}

/** The token an amount is counted in: the API's symbol by the list, else the list's token at the chain's address (to print the chain's figure). */
function tokenOf(subject: Subject, path: string, o: Judging, chainAddress?: string): ResolvedToken | undefined {
  const symbol = valueAt(subject.record, path);
  return (typeof symbol === 'string' ? o.tokens.get(symbol) : undefined) ?? (chainAddress ? listedAddress(o.chain, chainAddress) : undefined);
}

function amountDiffers(subject: Subject, field: string, api: unknown, chain: bigint, tokenPath: string, o: Judging): Difference | undefined {
  const token = tokenOf(subject, tokenPath, o);
  // Without decimals nothing can be said of the amount; the token's own difference says why.
  if (!token) return undefined;
  const units = typeof api === 'string' ? baseUnits(api, token.decimals) : undefined;
  return units === chain ? undefined : { field, api: printed(api), chain: formatUnits(chain, token.decimals) };
}

/** An API decimal string in base units, exactly; undefined when it has more decimals than the token (or is no number). */
export function baseUnits(text: string, decimals: number): bigint | undefined {
  if (!/^-?\d+(\.\d+)?$/.test(text)) return undefined;
  const scaled = new Big(text).times(new Big(10).pow(decimals));
  return scaled.eq(scaled.round(0, Big.roundDown)) ? BigInt(scaled.toFixed(0)) : undefined;
}

/** Worst first: the verdict of a record verified in parts (a wallet-to-wallet payment's receivers). */
const SEVERITY: readonly Verdict[] = ['missing', 'reorged', 'reverted', 'spoofed', 'mismatch', 'unconfirmed', 'pending', 'verified'];

export function worst(verdicts: readonly Verdict[]): Verdict {
  return SEVERITY.find((v) => verdicts.includes(v)) ?? 'verified';
}
