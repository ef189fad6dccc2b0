/**
 * Group commit: items added while a write is in flight are written together by the next
 * one, so a burst costs a few transactions instead of one per item. `add` resolves once
 * its item's write committed and rejects with that write's error.
 */
export class GroupCommit<T> {
  private queued: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (!this.writing) this.writing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    // Let the items of the current tick join the first write too.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queued.length > 0) {
      const batch = this.queued;
      this.queued = [];
      try {
        await this.write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.writing = null;
  }
}
