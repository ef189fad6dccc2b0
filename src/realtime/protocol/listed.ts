/**
 * Fails to compile, naming them, while `Left` (the types a runtime list leaves out) is not
 * empty: `AllListed<Exclude<Union, (typeof LIST)[number]>>`.
 */
export type AllListed<Left extends never> = Left;
