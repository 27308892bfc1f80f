import type { Envelope } from '../../registry/schemas.js';

// The one paginator. It asks for the first page, learns `total`, then fetches the
// remaining pages with bounded concurrency and yields them strictly in order, so a
// consumer can stream them out while at most `concurrency` pages are held in memory.

export interface PageRequest {
  offset: number;
  limit: number;
}

export interface PageWindow {
  /** Most records wanted; Infinity for --all. */
  limit: number;
  pageSize: number;
  offset: number;
  concurrency: number;
}

export interface Page {
  records: unknown[];
  /** The server's total for the whole query (not only from `offset`). */
  total: number;
}

export async function* paginate(fetchPage: (req: PageRequest) => Promise<Envelope>, w: PageWindow): AsyncGenerator<Page> {
  const firstSize = Math.min(w.pageSize, w.limit);
  const first = await fetchPage({ offset: w.offset, limit: firstSize });
  const total = first.total;
  yield { records: first.data, total };
  if (first.data.length < firstSize) return; // the server had no more

  const end = Math.min(total, w.offset + w.limit);
  const offsets: number[] = [];
  for (let o = w.offset + first.data.length; o < end; o += w.pageSize) offsets.push(o);

  const inFlight: Promise<Envelope>[] = [];
  let next = 0;
  const launch = () => {
    const offset = offsets[next++];
    const p = fetchPage({ offset, limit: Math.min(w.pageSize, end - offset) });
    // A page that fails while an earlier one is awaited must not become an unhandled
    // rejection; its error surfaces when its turn comes.
    p.catch(() => {});
    inFlight.push(p);
  };
  try {
    while (next < offsets.length && inFlight.length < w.concurrency) launch();
    for (let i = 0; i < offsets.length; i++) {
      const page = await inFlight.shift()!;
      if (next < offsets.length) launch();
      yield { records: page.data, total };
      const asked = Math.min(w.pageSize, end - offsets[i]);
      if (page.data.length < asked) return; // records vanished since the first page
    }
  } finally {
    inFlight.length = 0;
  }
}
