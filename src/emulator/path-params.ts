import { endpoints } from '../registry/endpoints.js';
import type { PathParam } from '../registry/types.js';
import { HttpError } from './reply.js';

// Ids in a path are checked against the registry's patterns (a plan id is 0x + 64 hex)
// before anything is looked up or written, as the API checks its parameters: a PUT of a
// webhook on plans/nonsense is refused rather than stored. Status 400, not 404: API-FACTS
// gives 4xx to "bad or incomplete parameters" and 404 ("Page not found") to what does
// not exist; a malformed id is a bad parameter, a well-formed unknown one stays a 404.

/** Each API template's path parameters; writes share their template with a read (short url PUT/DELETE, webhook PUT/DELETE). */
const paramsByTemplate = new Map<string, readonly PathParam[]>(endpoints.map((e) => [`/v1/:chain${e.path}`, e.params]));

/** Throws 400 in the API's error body when a path parameter does not match its pattern. */
export function checkPathParams(template: string, params: Record<string, string>): void {
  for (const p of paramsByTemplate.get(template) ?? []) {
    const result = p.schema.safeParse(params[p.name]);
    if (!result.success) {
      throw new HttpError(400, `Invalid ${p.name} ${JSON.stringify(params[p.name])}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
    }
  }
}
