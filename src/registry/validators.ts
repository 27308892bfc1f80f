import { z } from 'zod';
import { hasControlCharacters } from './unsafe-text.js';
import { CHAIN_NAME, CHAIN_NAME_EXPECTED } from './chain-name.js';

// Validators for values a user types. Each message says what is expected, because
// it is shown as is: "invalid --plan-id "0x12": expected 0x followed by 64 hex characters".

export const NO_CONTROL_CHARACTERS = 'expected no control characters (newlines, escapes, bidi overrides)';

/**
 * The one rule for free text that is sent: no control characters (C0, DEL, C1), no
 * bidi embeddings, overrides or isolates, no line separators: the characters that
 * would be neutralised were they shown. Every free-text schema starts from it.
 */
export const typedText = z.string().refine((s) => !hasControlCharacters(s), NO_CONTROL_CHARACTERS);

export const hexId = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'expected 0x followed by 64 hex characters');

export const txHash = hexId;

export const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a wallet address: 0x followed by 40 hex characters');

export const uuid = z
  .string()
  .regex(
    /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    'expected a UUID such as 123e4567-e89b-12d3-a456-426614174000',
  );

export const token = typedText.regex(/^[A-Za-z0-9._$-]{1,32}$/, 'expected a token symbol such as USDT (letters, digits, . _ $ -)');

/** Free text such as a tag or a short url name: printable, at most 256 characters. */
export const text = typedText.min(1, 'expected a non-empty value').max(256, 'expected at most 256 characters');

export const email = typedText
  .max(254, 'expected at most 254 characters')
  .regex(/^[^\s@]+@[^\s@]+$/, 'expected an email address such as ana@example.com');

/** Short code of a short url: the last segment of its link. */
export const shortUrlPath = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected a short url code (letters, digits, _ and -)');

/** A notification id is the sha256 of its content: 64 hex characters, no 0x. */
export const notificationId = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters (no 0x)');

/** Chains are an open list: any lower-case slug (chain-name.ts: the settings check it without zod). */
export const chain = z.string().regex(CHAIN_NAME, CHAIN_NAME_EXPECTED);

export { KNOWN_CHAINS } from './chain-name.js';

export const httpUrl = typedText
  .max(2048, 'expected at most 2048 characters')
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'expected an http:// or https:// URL');
