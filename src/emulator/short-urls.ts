import type { z } from 'zod';
import { endpoints } from '../registry/endpoints.js';
import * as v from '../registry/validators.js';
import { jsonObjectBody, nowSeconds, type ApiRequest, type ApiRoute } from './api-route.js';
import type { Datasets } from './datasets.js';
import type { Random } from './prng.js';
import { HttpError, json } from './reply.js';
import { shortPath, type ShortUrlRecord } from './world.js';

// Short url create, update and delete (reads come from the registry). API-SPEC.md lists
// the parameters as query parameters (name, planId, params.callbackSuccess,
// params.callbackError, params.extra as a JSON string); a JSON body with the same names,
// flat or nested under `params`, is accepted too. Create answers 201 with the record,
// update 200 with the record, delete 200 with {"deleted":true,"path":…}. A short url
// belongs to the key that created it: another user's is answered 404, as if absent.

const SHORT_LINK_BASE = 'https://8pay.me';
const MAX_NAME = 256;
const MAX_EXTRA_KEYS = 50;

interface ShortUrlInput {
  name?: string;
  planId?: string;
  callbackSuccess?: string;
  callbackError?: string;
  extra?: Record<string, string>;
}

export function shortUrlRoutes(datasets: Datasets, random: Random): ApiRoute[] {
  const collections = [...new Set(endpoints.filter((e) => e.collection.endsWith('/short-urls')).map((e) => e.collection))];
  return collections.flatMap((collection): ApiRoute[] => {
    const product = collection.slice(0, -'/short-urls'.length);
    const find = (req: ApiRequest) => {
      const store = datasets.store(req.chain, collection);
      const pos = store.findLast([
        { field: 'path', value: req.params.path },
        { field: 'owner', value: req.user },
      ]);
      if (pos < 0) throw new HttpError(404, `Short url ${req.params.path} not found`);
      return { store, pos, record: JSON.parse(store.body(pos)) as ShortUrlRecord };
    };
    return [
      {
        method: 'POST',
        template: `/v1/:chain/${product}/short-urls`,
        handle(req) {
          const input = readInput(req);
          if (input.name === undefined) throw new HttpError(400, 'Missing parameter name');
          if (input.planId === undefined) throw new HttpError(400, 'Missing parameter planId');
          const path = freePath(datasets, collections, req.chain, random);
          const now = nowSeconds();
          const record: ShortUrlRecord = {
            path,
            name: input.name,
            planId: input.planId,
            createdAt: now,
            updatedAt: now,
            params: paramsOf(input, {}),
            link: `${SHORT_LINK_BASE}/${path}`,
          };
          datasets.insert(req.chain, collection, { timestamp: now, record, internal: { owner: req.user } });
          return json(201, record);
        },
      },
      {
        method: 'PUT',
        template: `/v1/:chain/${product}/short-urls/:path`,
        handle(req) {
          const input = readInput(req);
          const { store, pos, record } = find(req);
          const updated: ShortUrlRecord = {
            ...record,
            name: input.name ?? record.name,
            planId: input.planId ?? record.planId,
            updatedAt: Math.max(nowSeconds(), record.createdAt),
            params: paramsOf(input, record.params),
          };
          store.replace(pos, { timestamp: record.createdAt, record: updated, internal: { owner: req.user } });
          return json(200, updated);
        },
      },
      {
        method: 'DELETE',
        template: `/v1/:chain/${product}/short-urls/:path`,
        handle(req) {
          const { store, pos, record } = find(req);
          store.remove(pos);
          return json(200, { deleted: true, path: record.path });
        },
      },
    ];
  });
}

function paramsOf(input: ShortUrlInput, previous: ShortUrlRecord['params']): ShortUrlRecord['params'] {
  const params: ShortUrlRecord['params'] = {};
  const callbackSuccess = input.callbackSuccess ?? previous.callbackSuccess;
  const callbackError = input.callbackError ?? previous.callbackError;
  const extra = input.extra ?? previous.extra;
  if (callbackSuccess !== undefined) params.callbackSuccess = callbackSuccess;
  if (callbackError !== undefined) params.callbackError = callbackError;
  if (extra !== undefined) params.extra = extra;
  return params;
}

/** A code no short url of the chain uses yet (links share one namespace). */
function freePath(datasets: Datasets, collections: string[], chain: string, random: Random): string {
  for (;;) {
    const path = shortPath(random);
    const taken = collections.some((c) => datasets.store(chain, c).findLast([{ field: 'path', value: path }]) >= 0);
    if (!taken) return path;
  }
}

function readInput(req: ApiRequest): ShortUrlInput {
  const body = jsonObjectBody(req);
  const nested = isObject(body.params) ? body.params : {};
  const raw = (name: string, nestedName?: string): unknown =>
    req.query.get(name) ?? body[name] ?? (nestedName === undefined ? undefined : nested[nestedName]);

  const name = optionalString(raw('name'), 'name');
  if (name !== undefined && (name.length === 0 || name.length > MAX_NAME)) {
    throw new HttpError(400, `Invalid name: expected 1 to ${MAX_NAME} characters`);
  }
  const planId = validated(optionalString(raw('planId'), 'planId'), 'planId', v.hexId);
  const callbackSuccess = validated(optionalString(raw('params.callbackSuccess', 'callbackSuccess'), 'params.callbackSuccess'), 'params.callbackSuccess', v.httpUrl);
  const callbackError = validated(optionalString(raw('params.callbackError', 'callbackError'), 'params.callbackError'), 'params.callbackError', v.httpUrl);
  return { name, planId, callbackSuccess, callbackError, extra: parseExtra(raw('params.extra', 'extra')) };
}

/** params.extra: a JSON object string (as documented) or, in a JSON body, the object itself. */
function parseExtra(raw: unknown): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new HttpError(400, 'Invalid params.extra: expected a JSON object such as {"banner":"BR69"}');
    }
  }
  if (!isObject(value)) throw new HttpError(400, 'Invalid params.extra: expected a JSON object such as {"banner":"BR69"}');
  const entries = Object.entries(value);
  if (entries.length > MAX_EXTRA_KEYS) throw new HttpError(400, `Invalid params.extra: at most ${MAX_EXTRA_KEYS} keys`);
  const extra: Record<string, string> = {};
  for (const [key, item] of entries) {
    if (typeof item === 'object' && item !== null) throw new HttpError(400, `Invalid params.extra.${key}: expected a string value`);
    // Numbers and booleans are kept as their text: the response carries strings only.
    extra[key] = String(item);
  }
  return extra;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new HttpError(400, `Invalid ${name}: expected a string`);
  return value;
}

function validated(value: string | undefined, name: string, schema: z.ZodType<string>): string | undefined {
  if (value === undefined) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, `Invalid ${name}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
