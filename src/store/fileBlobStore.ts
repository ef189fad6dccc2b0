import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertBlobHash,
  assertStoredSize,
  BlobNotFoundError,
  DEFAULT_LIST_LIMIT,
  isBlobHash,
  rangeWithin,
  STAGING_ABANDONED_MS,
  verifiedBytes,
  type BlobStat,
  type BlobStore,
  type ByteRange,
} from './blobStore.js';

/** Staging files of puts start so: other temporary files may share the `tmp` folder and are left alone. */
const STAGING_PREFIX = 'blob-';
const FAN_OUT = /^[0-9a-f]{2}$/;

/**
 * Blobs as files under one directory, `<dir>/ab/cd/<sha256>`: two levels of 256 folders keep
 * any one folder small. A put writes `<dir>/tmp/blob-<random>`, syncs it to disk and renames it
 * into place (a rename within one file system is atomic), so a blob's path holds all of its
 * bytes or nothing, whenever the process dies. Staging a dead put left behind is never seen by
 * reads and is removed by a later put once it is an hour old (a put in flight keeps its file
 * younger, as every write moves its mtime).
 */
export class FileBlobStore implements BlobStore {
  private readonly stagingDir: string;
  private stagingSweptAt = 0;

  constructor(private readonly dir: string) {
    this.stagingDir = join(dir, 'tmp');
  }

  async put(hash: string, size: number, source: () => Readable): Promise<void> {
    const path = this.pathOf(hash);
    const stored = await this.stat(hash);
    if (stored) return assertStoredSize(hash, stored, size);
    await this.removeAbandonedStaging();
    const staging = await this.writeStaging(hash, size, source);
    try {
      await mkdir(dirname(path), { recursive: true });
      // Two puts of one hash rename the same bytes over each other: either leaves the blob whole.
      await rename(staging, path);
    } catch (error) {
      await rm(staging, { force: true });
      throw error;
    }
    await syncDirectory(dirname(path));
  }

  async stat(hash: string): Promise<BlobStat | null> {
    try {
      return { size: (await stat(this.pathOf(hash))).size };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  read(hash: string, range?: ByteRange): Readable {
    return Readable.from(fileBytes(this.pathOf(hash), hash, range), { objectMode: false });
  }

  async delete(hash: string): Promise<void> {
    await rm(this.pathOf(hash), { force: true });
  }

  async list(after?: string, limit = DEFAULT_LIST_LIMIT): Promise<string[]> {
    if (after !== undefined) assertBlobHash(after);
    const found: string[] = [];
    for (const top of await namesIn(this.dir, (name) => FAN_OUT.test(name) && (!after || name >= after.slice(0, 2)))) {
      const subs = await namesIn(join(this.dir, top), (name) => FAN_OUT.test(name) && (!after || top + name >= after.slice(0, 4)));
      for (const sub of subs) {
        const hashes = await namesIn(join(this.dir, top, sub), (name) => isBlobHash(name) && name.startsWith(top + sub) && (!after || name > after));
        found.push(...hashes.slice(0, limit - found.length));
        if (found.length >= limit) return found;
      }
    }
    return found;
  }

  private pathOf(hash: string): string {
    assertBlobHash(hash);
    return join(this.dir, hash.slice(0, 2), hash.slice(2, 4), hash);
  }

  /** Writes the verified bytes to a new staging file, synced to disk; removes it if anything failed. */
  private async writeStaging(hash: string, size: number, source: () => Readable): Promise<string> {
    await mkdir(this.stagingDir, { recursive: true });
    const staging = join(this.stagingDir, `${STAGING_PREFIX}${randomUUID()}`);
    try {
      // `flush`: the file is synced to disk before it is closed.
      await pipeline(verifiedBytes(source(), hash, size), createWriteStream(staging, { flags: 'wx', flush: true }));
    } catch (error) {
      await rm(staging, { force: true });
      throw error;
    }
    return staging;
  }

  /** Once an hour at most: the staging files of puts that died (their process killed) an hour ago or more. */
  private async removeAbandonedStaging(): Promise<void> {
    const now = Date.now();
    if (now - this.stagingSweptAt < STAGING_ABANDONED_MS) return;
    this.stagingSweptAt = now;
    for (const name of await namesIn(this.stagingDir, (name) => name.startsWith(STAGING_PREFIX))) {
      const path = join(this.stagingDir, name);
      const modified = (await stat(path).catch(() => null))?.mtimeMs;
      if (modified !== undefined && now - modified >= STAGING_ABANDONED_MS) await rm(path, { force: true });
    }
  }
}

/** The bytes of a blob's file, or of a range of it, read by a file stream (64 KiB at a time). */
async function* fileBytes(path: string, hash: string, range: ByteRange | undefined): AsyncGenerator<Buffer> {
  const file = await open(path, 'r').catch((error: unknown) => {
    throw isMissing(error) ? new BlobNotFoundError(hash) : error;
  });
  try {
    const within = rangeWithin(range, (await file.stat()).size);
    if (within) yield* file.createReadStream({ start: within.start, end: within.end, autoClose: false }) as AsyncIterable<Buffer>;
  } finally {
    await file.close();
  }
}

/** The names in a folder that `keep` accepts, sorted; none for a folder that does not exist. */
async function namesIn(path: string, keep: (name: string) => boolean): Promise<string[]> {
  try {
    return (await readdir(path)).filter(keep).sort();
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/** A rename is durable once the folder holding the new name is synced too. */
async function syncDirectory(path: string): Promise<void> {
  const folder = await open(path, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

const isMissing = (error: unknown) => (error as { code?: unknown })?.code === 'ENOENT';
