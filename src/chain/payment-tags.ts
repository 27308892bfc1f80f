import { ApiError } from '../core/runtime/errors.js';
import type { ApiClient } from '../core/http/client.js';
import type { Subject } from './decode.js';
import { endpoints } from '../registry/endpoints.js';

// A one-time transfer's Payment event carries its payment's tag (ONCHAIN.md §7): the
// verifier holds it against the tag of the payment its oneTimeId names. The tags come
// from the mirror where it has the payment, else from the API by id (GET
// /one-time/:id), once each per run; an id the API does not know has no tag (null),
// which the verdict reports as a `tag` difference.

/** GET one one-time payment (the registry's path, `:id` to fill), and the list of them all. */
const PAYMENT_PATH = endpoints.find((e) => e.id === 'one-time.payments.get')!.path;
const PAYMENTS_PATH = endpoints.find((e) => e.id === 'one-time.payments.list')!.path;

/** Payments asked of the API at once. */
const AT_ONCE = 8;
/** More unknown payments than this: the whole list is read once, a thousand a page, rather than one request each. */
const LIST_FROM = 100;
const PAGE = 1000;

export class PaymentTags {
  private readonly byId = new Map<string, string | null>();
  private listed = false;

  constructor(private readonly client: () => Promise<ApiClient>) {}

  /** Tags known already (the mirror's), by id. */
  add(id: string, tag: string): void {
    this.byId.set(id.toLowerCase(), tag);
  }

  /** Reads from the API the tags of `ids` not known yet. */
  async load(ids: Iterable<unknown>): Promise<void> {
    let wanted = [...new Set([...ids].filter((id): id is string => typeof id === 'string').map((id) => id.toLowerCase()))].filter((id) => !this.byId.has(id));
    if (wanted.length === 0) return;
    const client = await this.client();
    if (wanted.length > LIST_FROM && !this.listed) {
      this.listed = true;
      await this.listAll(client);
      wanted = wanted.filter((id) => !this.byId.has(id));
    }
    // One by one: few of them, or payments the list did not hold when read (one that arrived while it was paged).
    for (let i = 0; i < wanted.length; i += AT_ONCE) {
      await Promise.all(
        wanted.slice(i, i + AT_ONCE).map(async (id) => {
          try {
            const payment = (await client.json({ method: 'GET', path: PAYMENT_PATH.replace(':id', encodeURIComponent(id)) })) as { tag?: unknown } | null;
            this.byId.set(id, typeof payment?.tag === 'string' ? payment.tag : null);
          } catch (err) {
            if (!(err instanceof ApiError && err.status === 404)) throw err;
            this.byId.set(id, null);
          }
        }),
      );
    }
  }

  /** Every payment's tag, page by page. */
  private async listAll(client: ApiClient): Promise<void> {
    for (let offset = 0; ; offset += PAGE) {
      const page = (await client.json({ method: 'GET', path: PAYMENTS_PATH, query: { limit: PAGE, offset } })) as { data?: unknown };
      const data = Array.isArray(page?.data) ? (page.data as { id?: unknown; tag?: unknown }[]) : [];
      for (const p of data) if (typeof p?.id === 'string' && typeof p.tag === 'string') this.byId.set(p.id.toLowerCase(), p.tag);
      if (data.length < PAGE) return;
    }
  }

  /** The tag of payment `id` (null: none); undefined when `id` is no id. */
  of(id: unknown): string | null | undefined {
    return typeof id === 'string' ? (this.byId.get(id.toLowerCase()) ?? null) : undefined;
  }
}

/** Gives each one-time transfer among `subjects` the tag of its payment (read as needed). */
export async function withPaymentTags(subjects: Subject[], tags: PaymentTags): Promise<void> {
  const transfers = subjects.filter((s) => s.collection === 'one-time/transfers');
  await tags.load(transfers.map((s) => s.record.oneTimeId));
  for (const s of transfers) s.paymentTag = tags.of(s.record.oneTimeId) ?? null;
}
