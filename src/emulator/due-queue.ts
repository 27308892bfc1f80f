// A binary min-heap of items by due time: pending records resolve 1–5 s after they
// arrive, so due times come out of order, and thousands can wait at once.

export class DueQueue<T> {
  private readonly heap: { due: number; item: T }[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(due: number, item: T): void {
    const heap = this.heap;
    heap.push({ due, item });
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (heap[parent].due <= heap[i].due) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }

  /** Removes and returns the earliest item if it is due at `now`. */
  popDue(now: number): T | undefined {
    const heap = this.heap;
    if (heap.length === 0 || heap[0].due > now) return undefined;
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let min = i;
        if (l < heap.length && heap[l].due < heap[min].due) min = l;
        if (r < heap.length && heap[r].due < heap[min].due) min = r;
        if (min === i) break;
        [heap[min], heap[i]] = [heap[i], heap[min]];
        i = min;
      }
    }
    return top.item;
  }

  clear(): void {
    this.heap.length = 0;
  }
}
