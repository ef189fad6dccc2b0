/**
 * A value made on first use and kept: start-up builds only what a request needs when it
 * needs it (compiled validators, modules only some requests use).
 */
export function lazy<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
