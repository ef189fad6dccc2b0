/**
 * Resolves on a later turn of the event loop (after pending I/O callbacks), unlike a resolved
 * promise, which runs before them. Awaited between two long synchronous steps, it lets requests
 * that arrived meanwhile be answered in between.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
