import { getAddress, keccak256, stringToHex, type Address, type Hex } from 'viem';
import type { ChainSlug } from '../../chain/model.js';
import { feeOf, fromUnits, representable, toUnits } from './amounts.js';
import { otherToken, tokenOf, type ChainToken } from './tokens.js';

// What the chain says for each field of an API record, and where it says something else.
// A layout (layouts.ts) asks for every field it puts on chain by its ONCHAIN.md §9 name
// (`amount`, `receivers[1].user`); the answer is the API's value as the chain holds it,
// except for the one field a seeded discrepancy names, which comes back changed. Every
// difference is noted with its reason: the ground truth GET /_emulator/chain/discrepancies
// lists. Values are noted in §9's forms: amounts as decimal strings in the API token's
// decimals, addresses and ids in lower case (as nodes answer), counts and numbers as numbers.

export type Reason =
  /** Planted by the emulator on purpose. */
  | 'seeded'
  /**
   * The API's fee is not what the contract takes on the amount at the fee account's
   * feePercentage. The emulator's records never say so (values.ts computes the fee as
   * the contract does): noted all the same, so a slip there shows on the ground truth.
   */
  | 'fee'
  /** The API's value has more decimals than the token (never in the emulator's records: noted so a slip shows). */
  | 'decimals'
  /** The API's token is not in 8pay's token list for the chain. */
  | 'token'
  /** A one-time transfer's oneTimeId names no payment of the chain (never in the emulator's own records). */
  | 'payment';

export type FieldValue = string | number | boolean;

export interface Difference {
  field: string;
  api: FieldValue;
  chain: FieldValue;
  reason: Reason;
}

/** The seeded difference of one field: `roll` picks how it differs. */
export interface SeededField {
  field: string;
  roll: number;
}

/** A value derived from `text` that looks like a real one and is not it. */
const derived = (text: string): Hex => keccak256(stringToHex(`payrec emulator seeded ${text}`));

export class Transcript {
  /** The fields asked for, in order: what a seeded difference picks from. */
  readonly fields: string[] = [];
  readonly differences: Difference[] = [];

  constructor(
    readonly chain: ChainSlug,
    private readonly seeded?: SeededField,
  ) {}

  address(field: string, api: string): Address {
    // The API's mixed case is random, not a checksum: lower case is what viem takes unchecked.
    if (!this.seeding(field)) return api.toLowerCase() as Address;
    const chain = getAddress(`0x${derived(api).slice(26)}`);
    return this.differ(field, api, chain.toLowerCase(), 'seeded', chain);
  }

  /** A bytes32 id (subscriptionId, planId, scheduleId, strategyId). */
  id(field: string, api: string): Hex {
    if (!this.seeding(field)) return api as Hex;
    return this.differ(field, api.toLowerCase(), derived(api), 'seeded');
  }

  /** A number (cycleStart, timestamp, success); a seeded one moves by `by`. */
  number(field: string, api: number, by: number): number {
    if (!this.seeding(field)) return api;
    return this.differ(field, api, api + by, 'seeded');
  }

  flag(field: string, api: boolean): boolean {
    if (!this.seeding(field)) return api;
    return this.differ(field, api, !api, 'seeded');
  }

  text(field: string, api: string): string {
    if (!this.seeding(field)) return api;
    return this.differ(field, api, `${api} (edited)`, 'seeded');
  }

  /** A one-time payment's tag, as the chain holds it: keccak256 of its UTF-8 text. */
  tag(field: string, api: string): Hex {
    const hash = keccak256(stringToHex(api));
    if (!this.seeding(field)) return hash;
    return this.differ(field, hash, keccak256(stringToHex(`${api} (edited)`)), 'seeded');
  }

  /** A one-time transfer whose oneTimeId names no payment: its Payment's tag (`chain`) matches none. */
  unknownPayment(field: string, oneTimeId: string, chain: Hex): void {
    this.differ(field, `(no payment ${oneTimeId})`, chain, 'payment');
  }

  /** A count (receivers, swaps); a seeded one is one less, or one more when it is 1. */
  count(field: string, api: number): number {
    if (!this.seeding(field)) return api;
    return this.differ(field, api, api > 1 ? api - 1 : api + 1, 'seeded');
  }

  token(field: string, symbol: string): ChainToken {
    const token = tokenOf(this.chain, symbol);
    if (this.seeding(field)) {
      const other = otherToken(this.chain, token, this.seeded!.roll);
      return this.differ(field, token.listed ? token.address.toLowerCase() : symbol, other.address.toLowerCase(), 'seeded', other);
    }
    if (!token.listed) this.differ(field, symbol, token.address.toLowerCase(), 'token');
    return token;
  }

  /** An amount in the token's smallest unit; a seeded one is about 1 % more. */
  amount(field: string, api: string, token: ChainToken): bigint {
    const units = toUnits(api, token.decimals);
    if (this.seeding(field)) {
      const more = units + units / 100n + 1n;
      return this.differ(field, api, fromUnits(more, token.decimals), 'seeded', more);
    }
    if (!representable(api, token.decimals)) this.differ(field, api, fromUnits(units, token.decimals), 'decimals');
    return units;
  }

  /**
   * The feePercentage of a transfer of `amount` (already on chain): the fee account's
   * (`feePercentage`), noting where the API's fee is not the fee it takes. A seeded one
   * takes a quarter percent more (or, where that changes nothing, all or nothing).
   */
  feePercentage(field: string, api: string, amount: bigint, token: ChainToken, feePercentage: bigint): bigint {
    this.fields.push(field);
    const fee = feeOf(amount, feePercentage);
    if (this.seeded?.field === field) {
      let other = feePercentage + 25n;
      if (other > 10_000n || feeOf(amount, other) === fee) other = feePercentage === 10_000n ? 0n : 10_000n;
      this.differ(field, api, fromUnits(feeOf(amount, other), token.decimals), 'seeded');
      return other;
    }
    if (fee !== toUnits(api, token.decimals) || !representable(api, token.decimals)) {
      this.differ(field, api, fromUnits(fee, token.decimals), representable(api, token.decimals) ? 'fee' : 'decimals');
    }
    return feePercentage;
  }

  private seeding(field: string): boolean {
    this.fields.push(field);
    return this.seeded?.field === field;
  }

  private differ<T>(field: string, api: FieldValue, chain: FieldValue, reason: Reason, value?: T): T {
    this.differences.push({ field, api, chain, reason });
    return (value === undefined ? chain : value) as T;
  }
}
