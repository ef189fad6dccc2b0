import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

/** An inclusive byte range of a blob, as HTTP's `Range: bytes=start-end` names one. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Content-addressed storage for uploaded bytes: a blob is named by the SHA-256 of its bytes
 * (64 lowercase hex digits), so storing the same bytes twice stores them once. Every method
 * is idempotent. The store keeps bytes only; which asset names a blob, and when an unnamed
 * blob may go, is for its callers to know.
 */
export interface BlobStore {
  /**
   * Stores the bytes `source()` streams under `hash`, once they are proven to be `size` bytes
   * whose SHA-256 is `hash` (`BlobMismatchError` otherwise, with nothing stored). The blob
   * appears whole or not at all, even if the process dies midway. A blob already stored is
   * kept, and `source` is then never called.
   */
  put(hash: string, size: number, source: () => Readable): Promise<void>;
  /** The blob's size in bytes, or null when it is not stored. */
  stat(hash: string): Promise<BlobStat | null>;
  /**
   * The blob's bytes, or those of `range`, streamed a bounded piece at a time. The stream fails
   * with `BlobNotFoundError` for a blob not stored, and with a `RangeError` for a range that
   * does not lie within the blob.
   */
  read(hash: string, range?: ByteRange): Readable;
  /** Removes the blob; nothing happens if it is not stored. */
  delete(hash: string): Promise<void>;
  /** Up to `limit` stored hashes after `after`, in ascending order: to walk every blob page by page. */
  list(after?: string, limit?: number): Promise<string[]>;
}

export interface BlobStat {
  size: number;
}

/** How many hashes `list` answers when the caller does not say. */
export const DEFAULT_LIST_LIMIT = 1000;

/** How old a put's staging (its temporary file or rows) must be before a later put may remove it as abandoned. */
export const STAGING_ABANDONED_MS = 60 * 60 * 1000;

/** The bytes given to `put` are not the size or the SHA-256 it was told. */
export class BlobMismatchError extends Error {
  constructor(hash: string, detail: string) {
    super(`blob ${hash}: ${detail}`);
    this.name = 'BlobMismatchError';
  }
}

/** `read` of a blob that is not stored (or was deleted while it was read). */
export class BlobNotFoundError extends Error {
  constructor(hash: string) {
    super(`blob ${hash} is not stored`);
    this.name = 'BlobNotFoundError';
  }
}

/** A SHA-256 in lowercase hex: the only form of hash the stores accept, as hashes become file paths and keys. */
export const isBlobHash = (name: string): boolean => /^[0-9a-f]{64}$/.test(name);

/** Refuses anything but a SHA-256 in lowercase hex (`isBlobHash`). */
export function assertBlobHash(hash: string): void {
  if (!isBlobHash(hash)) throw new TypeError(`not a blob hash (64 lowercase hex digits): ${JSON.stringify(hash).slice(0, 80)}`);
}

/** Checks `put`'s size against a blob already stored: the same hash with another size is a caller's mistake. */
export function assertStoredSize(hash: string, stored: BlobStat, size: number): void {
  if (stored.size !== size) throw new BlobMismatchError(hash, `stored with ${stored.size} bytes, not ${size}`);
}

/**
 * The bytes of `source`, passed on as they come, failing once they exceed `size` and, after
 * the last one, unless they were exactly `size` bytes hashing to `hash`. A consumer writes
 * them to staging and publishes only once the iteration ended without error.
 */
export async function* verifiedBytes(source: Readable, hash: string, size: number): AsyncGenerator<Buffer> {
  const digest = createHash('sha256');
  let seen = 0;
  // Leaving the loop by a throw destroys `source`: an oversized stream is not read to its end.
  for await (const piece of source as AsyncIterable<Uint8Array>) {
    const bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
    seen += bytes.length;
    if (seen > size) throw new BlobMismatchError(hash, `more than the ${size} bytes announced`);
    digest.update(bytes);
    yield bytes;
  }
  if (seen !== size) throw new BlobMismatchError(hash, `${seen} bytes, not the ${size} announced`);
  const actual = digest.digest('hex');
  if (actual !== hash) throw new BlobMismatchError(hash, `the bytes hash to ${actual}`);
}

/** `range` checked against a blob of `size` bytes; the whole blob when none is asked (null for an empty blob). */
export function rangeWithin(range: ByteRange | undefined, size: number): ByteRange | null {
  if (!range) return size === 0 ? null : { start: 0, end: size - 1 };
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start > end || end >= size) {
    throw new RangeError(`bytes ${start}-${end} are not within a blob of ${size} bytes`);
  }
  return range;
}
