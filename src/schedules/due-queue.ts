/**
 * The armed schedules, ordered by due time: a binary min-heap with lazy removal. Arming
 * 10 000 schedules is 10 000 pushes (microseconds each) instead of 10 000 OS timers, and the
 * scheduler only ever needs one real timer — for whatever is due first.
 */
export class DueQueue {
  private heap: { at: number; id: number }[] = [];
  /** The live due time of each armed id; heap entries that disagree are stale and skipped. */
  private readonly armed = new Map<number, number>();

  get size(): number {
    return this.armed.size;
  }

  has(id: number): boolean {
    return this.armed.has(id);
  }

  /** When `id` is armed to fire, or undefined when it is not armed. */
  at(id: number): number | undefined {
    return this.armed.get(id);
  }

  /** Arms (or re-arms) `id` at `at`; an earlier arming of the same id is forgotten. */
  set(id: number, at: number): void {
    this.armed.set(id, at);
    this.push({ at, id });
    if (this.heap.length > 2 * this.armed.size + 1024) this.compact();
  }

  delete(id: number): void {
    this.armed.delete(id);
  }

  clear(): void {
    this.armed.clear();
    this.heap = [];
  }

  /** The earliest live due time, or null when nothing is armed. */
  peekAt(): number | null {
    this.dropStale();
    return this.heap[0]?.at ?? null;
  }

  /** Removes and returns every id due at or before `now`, earliest first. */
  popDue(now: number): { id: number; at: number }[] {
    const out: { id: number; at: number }[] = [];
    for (;;) {
      this.dropStale();
      const top = this.heap[0];
      if (!top || top.at > now) return out;
      this.pop();
      this.armed.delete(top.id);
      out.push(top);
    }
  }

  private dropStale(): void {
    while (this.heap.length > 0 && this.armed.get(this.heap[0]!.id) !== this.heap[0]!.at) this.pop();
  }

  private compact(): void {
    this.heap = [...this.armed].map(([id, at]) => ({ id, at })).sort((a, b) => a.at - b.at);
  }

  private push(e: { at: number; id: number }): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]!.at <= e.at) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = e;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const c = l + 1 < h.length && h[l + 1]!.at < h[l]!.at ? l + 1 : l;
      if (h[c]!.at >= last.at) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
  }
}
