import type { Reply } from './reply.js';
import { HttpError } from './reply.js';

// The shape shared by every API route, derived or hand-written.

export interface ApiRequest {
  chain: string;
  /** The user part of the API key ('' for the chain's demo key). */
  user: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Raw request body ('' when none). */
  body: string;
}

export interface ApiRoute {
  method: string;
  /** Full template, `/v1/:chain/...`. */
  template: string;
  handle: (req: ApiRequest) => Reply | Promise<Reply>;
}

/** The body as a JSON object; {} when empty; 400 when it is not a JSON object. */
export function jsonObjectBody(req: ApiRequest): Record<string, unknown> {
  return parseJsonObject(req.body);
}

export function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'Invalid request body: expected JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'Invalid request body: expected a JSON object');
  }
  return value as Record<string, unknown>;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
