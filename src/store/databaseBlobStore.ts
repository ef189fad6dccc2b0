import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  assertBlobHash,
  assertStoredSize,
  BlobNotFoundError,
  DEFAULT_LIST_LIMIT,
  rangeWithin,
  STAGING_ABANDONED_MS,
  verifiedBytes,
  type BlobStat,
  type BlobStore,
  type ByteRange,
} from './blobStore.js';
import type { DirectStatements } from './directStatements.js';

/** Blobs are stored in rows of this many bytes (the last row of a blob holds the rest). */
export const BLOB_CHUNK_BYTES = 1024 * 1024;

/** Rows of a put in progress are keyed `staging:<ms since 1970, 13 digits>:<random>`: never a blob hash. */
const STAGING = 'staging:';
const stagingKey = (now: number) => `${STAGING}${String(now).padStart(13, '0')}:${randomUUID()}`;

/**
 * Blobs as rows of `asset_blob_chunks (hash, seq, content)`, 1 MiB each, on SQLite and
 * PostgreSQL alike, through the driver-level statements: the ones that move bytes run on a
 * thread of their own on SQLite (`allLarge`), so the event loop only hashes and copies.
 *
 * A put writes its rows under a staging key, one statement per chunk, and publishes them with
 * one UPDATE renaming the key to the hash: the blob appears whole in one commit, and no write
 * transaction stays open while the bytes stream in (on SQLite it would hold every other writer
 * back meanwhile). Staging rows are never read; a put that died leaves them behind, and a later
 * put removes them once they are an hour old.
 */
export class DatabaseBlobStore implements BlobStore {
  private stagingSweptAt = 0;

  constructor(private readonly statements: DirectStatements) {}

  async put(hash: string, size: number, source: () => Readable): Promise<void> {
    assertBlobHash(hash);
    const stored = await this.stat(hash);
    if (stored) return assertStoredSize(hash, stored, size);
    await this.removeAbandonedStaging();
    const staging = stagingKey(Date.now());
    let published = false;
    try {
      let seq = 0;
      for await (const chunk of inChunks(verifiedBytes(source(), hash, size))) {
        await this.statements.allLarge('INSERT INTO asset_blob_chunks (hash, seq, content) VALUES (?, ?, ?) RETURNING seq', [staging, seq, chunk]);
        seq += 1;
      }
      published = await this.publish(staging, hash, size);
    } finally {
      // The rows of a put that failed, or of one that another put of the same hash beat.
      if (!published) await this.statements.allLarge('DELETE FROM asset_blob_chunks WHERE hash = ? RETURNING seq', [staging]);
    }
  }

  async stat(hash: string): Promise<BlobStat | null> {
    assertBlobHash(hash);
    // LENGTH reads a row's header, not its bytes, on both databases.
    const [row] = await this.statements.all<{ chunks: number | string; size: number | string | null }>(
      'SELECT COUNT(*) AS chunks, SUM(LENGTH(content)) AS size FROM asset_blob_chunks WHERE hash = ?',
      [hash],
    );
    return !row || Number(row.chunks) === 0 ? null : { size: Number(row.size) };
  }

  read(hash: string, range?: ByteRange): Readable {
    assertBlobHash(hash);
    return Readable.from(this.chunkBytes(hash, range), { objectMode: false });
  }

  async delete(hash: string): Promise<void> {
    assertBlobHash(hash);
    await this.statements.allLarge('DELETE FROM asset_blob_chunks WHERE hash = ? RETURNING seq', [hash]);
  }

  async list(after?: string, limit = DEFAULT_LIST_LIMIT): Promise<string[]> {
    if (after !== undefined) assertBlobHash(after);
    const rows = await this.statements.all<{ hash: string }>(
      `SELECT hash FROM asset_blob_chunks WHERE seq = 0 AND hash > ? AND hash NOT LIKE '${STAGING}%' ORDER BY hash LIMIT ?`,
      [after ?? '', limit],
    );
    return rows.map((row) => row.hash);
  }

  /**
   * Renames the staged rows to the hash unless the blob is stored already; false when it was.
   * On PostgreSQL two puts of one hash may both find it absent: the later commit fails on the
   * primary key, and then finds the blob the other one stored.
   */
  private async publish(staging: string, hash: string, size: number): Promise<boolean> {
    try {
      const renamed = await this.statements.allLarge(
        'UPDATE asset_blob_chunks SET hash = ? WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM asset_blob_chunks WHERE hash = ?) RETURNING seq',
        [hash, staging, hash],
      );
      return renamed.length > 0;
    } catch (error) {
      const stored = await this.stat(hash);
      if (!stored) throw error;
      assertStoredSize(hash, stored, size);
      return false;
    }
  }

  /** The chunks `range` falls in, read one statement (one chunk) at a time, cut to the range. */
  private async *chunkBytes(hash: string, range: ByteRange | undefined): AsyncGenerator<Buffer> {
    const stored = await this.stat(hash);
    if (!stored) throw new BlobNotFoundError(hash);
    const within = rangeWithin(range, stored.size);
    if (!within) return;
    const [first, last] = [Math.floor(within.start / BLOB_CHUNK_BYTES), Math.floor(within.end / BLOB_CHUNK_BYTES)];
    for (let seq = first; seq <= last; seq += 1) {
      const [row] = await this.statements.allLarge<{ content: Uint8Array }>('SELECT content FROM asset_blob_chunks WHERE hash = ? AND seq = ?', [hash, seq]);
      if (!row) throw new BlobNotFoundError(hash);
      // From the SQLite thread a Uint8Array arrives, from PostgreSQL a Buffer.
      const bytes = Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength);
      const offset = seq * BLOB_CHUNK_BYTES;
      yield bytes.subarray(Math.max(within.start - offset, 0), Math.min(within.end - offset + 1, bytes.length));
    }
  }

  /** Once an hour at most: the rows of puts that died (their process killed) an hour ago or more. */
  private async removeAbandonedStaging(): Promise<void> {
    const now = Date.now();
    if (now - this.stagingSweptAt < STAGING_ABANDONED_MS) return;
    this.stagingSweptAt = now;
    const cutoff = String(now - STAGING_ABANDONED_MS).padStart(13, '0');
    await this.statements.allLarge(
      `DELETE FROM asset_blob_chunks WHERE hash LIKE '${STAGING}%' AND SUBSTR(hash, ${STAGING.length + 1}, 13) < ? RETURNING seq`,
      [cutoff],
    );
  }
}

/** `pieces` regrouped into chunks of exactly `BLOB_CHUNK_BYTES` but the last; one empty chunk for no bytes at all. */
async function* inChunks(pieces: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let chunk = Buffer.allocUnsafe(BLOB_CHUNK_BYTES);
  let filled = 0;
  let yielded = false;
  for await (const piece of pieces) {
    for (let offset = 0; offset < piece.length; ) {
      const copied = piece.copy(chunk, filled, offset, Math.min(piece.length, offset + BLOB_CHUNK_BYTES - filled));
      [filled, offset] = [filled + copied, offset + copied];
      if (filled === BLOB_CHUNK_BYTES) {
        yield chunk;
        [chunk, filled, yielded] = [Buffer.allocUnsafe(BLOB_CHUNK_BYTES), 0, true];
      }
    }
  }
  // A copy the size of the rest: a view would carry its whole 1 MiB buffer through postMessage.
  if (filled > 0 || !yielded) yield Buffer.from(chunk.subarray(0, filled));
}
