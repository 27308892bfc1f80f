import { endpoints } from '../registry/endpoints.js';
import type { Endpoint } from '../registry/types.js';
import type { ApiRoute } from './api-route.js';
import { nowSeconds } from './api-route.js';
import type { Datasets } from './datasets.js';
import { parseListQuery } from './list-query.js';
import { errorReply, type Reply } from './reply.js';
import type { Condition } from './store.js';

// Every read endpoint of the registry becomes a route here; nothing is written per
// endpoint. Path parameters and filters select records by the field of the same name
// (or the filter's `field`); owned collections also select by the caller.

export function readRoutes(datasets: Datasets): ApiRoute[] {
  return endpoints.filter((e) => e.method === 'GET').map((e) => readRoute(e, datasets));
}

function readRoute(e: Endpoint, datasets: Datasets): ApiRoute {
  const owned = datasets.isOwned(e.collection);
  return {
    method: e.method,
    template: `/v1/:chain${e.path}`,
    handle(req): Reply {
      const store = datasets.store(req.chain, e.collection);
      const where: Condition[] = e.params.map((p) => ({ field: p.name, value: req.params[p.name] }));
      if (owned) where.push({ field: 'owner', value: req.user });

      if (e.kind === 'single') {
        const pos = store.findLast(where);
        if (pos < 0) return errorReply(404, `Not found: ${e.params.map((p) => `${p.name} ${req.params[p.name]}`).join(', ')}`);
        return { status: 200, body: store.body(pos) };
      }

      // `to` defaults to now, but never before the data's own anchor (which may be set in the future).
      const list = parseListQuery(req.query, e.timeWindow, Math.max(nowSeconds(), datasets.options.now));
      for (const f of e.filters) {
        const value = req.query.get(f.name);
        if (value !== null) where.push({ field: f.field ?? f.name, value });
      }
      const page = store.page({ ...list, where });
      return {
        status: 200,
        body: `{"data":[${page.bodies.join(',')}],"limit":${list.limit},"offset":${list.offset},"total":${page.total}}`,
      };
    },
  };
}
