/** Compile-time proof that a switch covered every case; throws if reached anyway. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
