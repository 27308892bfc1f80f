import { endpoints } from '../registry/endpoints.js';
import * as v from '../registry/validators.js';
import { jsonObjectBody, nowSeconds, type ApiRequest, type ApiRoute } from './api-route.js';
import type { Datasets } from './datasets.js';
import { HttpError, json } from './reply.js';

// Plan webhooks: PUT sets ({"webhook": url} → 200 {"webhook": url}), DELETE removes
// (200 {"deleted": true}, 404 when none). GET is the registry's read route over the same
// collection, matched on the internal planId.

const webhookCollections = () => [...new Set(endpoints.filter((e) => e.collection.endsWith('/webhooks')).map((e) => e.collection))];

export function webhookRoutes(datasets: Datasets): ApiRoute[] {
  return webhookCollections().flatMap((collection): ApiRoute[] => {
    const product = collection.slice(0, -'/webhooks'.length);
    const template = `/v1/:chain/${product}/plans/:planId/webhook`;
    const find = (req: ApiRequest) => {
      const store = datasets.store(req.chain, collection);
      return { store, pos: store.findLast([{ field: 'planId', value: req.params.planId }]) };
    };
    return [
      {
        method: 'PUT',
        template,
        handle(req) {
          const body = jsonObjectBody(req);
          const webhook = body.webhook ?? req.query.get('webhook') ?? undefined;
          if (webhook === undefined) throw new HttpError(400, 'Missing webhook: expected a JSON body {"webhook": "https://…"}');
          const result = v.httpUrl.safeParse(webhook);
          if (!result.success) throw new HttpError(400, `Invalid webhook: ${result.error.issues[0]?.message ?? 'expected a URL'}`);
          const { store, pos } = find(req);
          const entry = { timestamp: nowSeconds(), record: { webhook: result.data }, internal: { planId: req.params.planId } };
          // A changed webhook keeps its place: only lookups by plan ever read this collection.
          if (pos >= 0) store.replace(pos, entry);
          else datasets.insert(req.chain, collection, entry);
          return json(200, { webhook: result.data });
        },
      },
      {
        method: 'DELETE',
        template,
        handle(req) {
          const { store, pos } = find(req);
          if (pos < 0) throw new HttpError(404, `No webhook set for plan ${req.params.planId}`);
          store.remove(pos);
          return json(200, { deleted: true });
        },
      },
    ];
  });
}

/** The webhook currently set on a plan (read at every delivery attempt: a changed URL takes over). */
export function currentWebhook(datasets: Datasets, chain: string, planId: string): string | undefined {
  for (const collection of webhookCollections()) {
    const store = datasets.store(chain, collection);
    const pos = store.findLast([{ field: 'planId', value: planId }]);
    if (pos >= 0) return (JSON.parse(store.body(pos)) as { webhook: string }).webhook;
  }
  return undefined;
}
