import { describe, expect, it } from 'vitest';
import { currencyProblem, minorDigits, parseCurrency } from '../../src/values/currency.js';
import { UsageError } from '../../src/core/runtime/errors.js';

// --currency CODE: ISO 4217 codes as the runtime knows them (DESIGN.md "Values"), and
// each currency's minor unit, checked against ISO 4217's own table by hand.

const NOT_ISO = (code: string) => `${code} is not an ISO 4217 currency (a token's value is asked in a currency: USD, EUR, GBP…)`;
const NOT_A_CODE = 'expected an ISO 4217 code such as USD or EUR';

describe('parseCurrency', () => {
  it('takes a code in any case, around spaces, as upper case', () => {
    expect(parseCurrency('usd')).toBe('USD');
    expect(parseCurrency(' eur ')).toBe('EUR');
    expect(parseCurrency('JPY')).toBe('JPY');
  });

  it('refuses what is no ISO 4217 code with exit 2, naming the flag or setting and the value', () => {
    const refusal = (value: string, flag?: string) => {
      try {
        parseCurrency(value, flag);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message;
      }
      throw new Error(`${value} was accepted`);
    };
    expect(refusal('XYZ')).toBe(`invalid --currency "XYZ": ${NOT_ISO('XYZ')}`);
    expect(refusal('usdt', 'currency of profile work')).toBe(`invalid currency of profile work "usdt": ${NOT_ISO('USDT')}`);
    expect(refusal('dollars')).toBe(`invalid --currency "dollars": ${NOT_A_CODE}`);
  });
});

describe('currencyProblem', () => {
  it('says a code of three to five letters is not ISO 4217, and anything else is no code', () => {
    expect(currencyProblem('gbp')).toBeUndefined();
    expect(currencyProblem('BNB')).toBe(NOT_ISO('BNB'));
    expect(currencyProblem('8PAY')).toBe(NOT_A_CODE);
    expect(currencyProblem('1USD')).toBe(NOT_A_CODE);
    expect(currencyProblem('USDOLLAR')).toBe(NOT_A_CODE);
    expect(currencyProblem('US')).toBe(NOT_A_CODE);
    expect(currencyProblem('')).toBe(NOT_A_CODE);
  });
});

describe('minorDigits', () => {
  it("is ISO 4217's minor unit: 2 for USD and EUR, 0 for JPY, 3 for KWD", () => {
    expect(['USD', 'EUR', 'JPY', 'KWD', 'BHD', 'CHF'].map(minorDigits)).toEqual([2, 2, 0, 3, 3, 2]);
  });
});
