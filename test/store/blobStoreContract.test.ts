import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobMismatchError, BlobNotFoundError, STAGING_ABANDONED_MS, type BlobStore, type ByteRange } from '../../src/store/blobStore.js';
import { BLOB_CHUNK_BYTES, DatabaseBlobStore } from '../../src/store/databaseBlobStore.js';
import type { Database } from '../../src/store/database.js';
import type { DirectStatements } from '../../src/store/directStatements.js';
import { FileBlobStore } from '../../src/store/fileBlobStore.js';
import { forEachStoreAdapter } from '../helpers/storeAdapters.js';

/**
 * The blob-store port (src/store/blobStore.ts): one contract, run against the file adapter and
 * the database adapter on SQLite and on PostgreSQL.
 */

/** One adapter under test, and what a put killed midway would have left in its storage. */
interface BlobStoreFixture {
  /** A new instance over the same storage, as a restarted service would open. */
  open(): BlobStore;
  /** Leaves staging as a put whose process died `ageMs` ago would have: partial bytes, never published. */
  abandonStaging(ageMs: number): Promise<void>;
  stagingCount(): Promise<number>;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The bytes as a stream of 64 KiB pieces, as a file stream would give them. */
const sourceOf = (bytes: Buffer, failAfter?: number) => () =>
  Readable.from(
    (function* pieces() {
      for (let offset = 0; offset < bytes.length; offset += 65_536) {
        if (failAfter !== undefined && offset >= failAfter) throw new Error('the upload broke off');
        yield bytes.subarray(offset, offset + 65_536);
      }
    })(),
  );

const untouchedSource = () => {
  throw new Error('a blob already stored was read again');
};

async function readAll(stream: Readable): Promise<{ bytes: Buffer; largestPiece: number }> {
  const pieces: Buffer[] = [];
  for await (const piece of stream as AsyncIterable<Buffer>) pieces.push(piece);
  return { bytes: Buffer.concat(pieces), largestPiece: Math.max(0, ...pieces.map((piece) => piece.length)) };
}

const readBytes = async (store: BlobStore, hash: string, range?: ByteRange) => (await readAll(store.read(hash, range))).bytes;

/** How long `work` took, and the longest the event loop went without running a 1 ms timer meanwhile. */
async function pausesDuring(work: () => Promise<void>): Promise<{ took: number; longestPause: number }> {
  const started = performance.now();
  let [last, longestPause] = [started, 0];
  const timer = setInterval(() => {
    const now = performance.now();
    longestPause = Math.max(longestPause, now - last);
    last = now;
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { took: performance.now() - started, longestPause: Math.max(longestPause, performance.now() - last) };
}

/** A new blob of `size` random bytes, stored. */
async function stored(store: BlobStore, size: number): Promise<{ hash: string; bytes: Buffer }> {
  const bytes = randomBytes(size);
  const hash = sha256(bytes);
  await store.put(hash, size, sourceOf(bytes));
  return { hash, bytes };
}

export function registerBlobStoreContract(fixture: () => BlobStoreFixture): void {
  const store = () => fixture().open();

  describe('put and read', () => {
    it('reads back what was put, across chunk boundaries, a bounded piece at a time', async () => {
      const size = 2 * BLOB_CHUNK_BYTES + 12_345;
      const { hash, bytes } = await stored(store(), size);
      expect(await store().stat(hash)).toEqual({ size });
      const read = await readAll(store().read(hash));
      expect(read.bytes.equals(bytes)).toBe(true);
      expect(read.largestPiece).toBeLessThanOrEqual(BLOB_CHUNK_BYTES);
      expect(await store().list(undefined, 1_000_000)).toContain(hash);
    });

    it('stores small and empty blobs', async () => {
      for (const size of [1, 100, 0]) {
        const { hash, bytes } = await stored(store(), size);
        expect(await store().stat(hash)).toEqual({ size });
        expect((await readBytes(store(), hash)).equals(bytes)).toBe(true);
      }
    });

    it('puts and reads 50 MB without holding the event loop for 100 ms at a time', async () => {
      const bytes = randomBytes(50 * 1024 * 1024);
      const hash = sha256(bytes);
      const put = await pausesDuring(() => store().put(hash, bytes.length, sourceOf(bytes)));
      let read: Buffer = Buffer.alloc(0);
      const reading = await pausesDuring(async () => {
        read = await readBytes(store(), hash);
      });
      expect(read.equals(bytes)).toBe(true);
      expect(Math.max(put.longestPause, reading.longestPause), `put ${Math.round(put.took)} ms, read ${Math.round(reading.took)} ms`).toBeLessThan(100);
      await store().delete(hash);
    });

    it('keeps a blob already stored without reading the source again, and refuses another size for it', async () => {
      const { hash, bytes } = await stored(store(), BLOB_CHUNK_BYTES + 1);
      await store().put(hash, bytes.length, untouchedSource);
      await expect(store().put(hash, bytes.length + 1, untouchedSource)).rejects.toBeInstanceOf(BlobMismatchError);
      expect((await readBytes(store(), hash)).equals(bytes)).toBe(true);
      expect((await store().list(undefined, 1_000_000)).filter((listed) => listed === hash)).toHaveLength(1);
    });

    it('stores a blob once when many puts of it run at the same time', async () => {
      const bytes = randomBytes(3 * BLOB_CHUNK_BYTES + 7);
      const hash = sha256(bytes);
      await Promise.all(Array.from({ length: 5 }, () => store().put(hash, bytes.length, sourceOf(bytes))));
      expect(await store().stat(hash)).toEqual({ size: bytes.length });
      expect((await readBytes(store(), hash)).equals(bytes)).toBe(true);
      expect((await store().list(undefined, 1_000_000)).filter((listed) => listed === hash)).toHaveLength(1);
      expect(await fixture().stagingCount()).toBe(0);
    });
  });

  describe('bytes that are not what the put was told', () => {
    const bytes = randomBytes(BLOB_CHUNK_BYTES + 500);
    const cases = [
      { title: 'another hash', hash: sha256(randomBytes(16)), size: bytes.length },
      { title: 'fewer bytes than announced', hash: sha256(bytes), size: bytes.length + 1 },
      { title: 'more bytes than announced', hash: sha256(bytes), size: bytes.length - 1 },
    ];
    for (const { title, hash, size } of cases) {
      it(`refuses ${title} and stores nothing`, async () => {
        await expect(store().put(hash, size, sourceOf(bytes))).rejects.toBeInstanceOf(BlobMismatchError);
        expect(await store().stat(hash)).toBeNull();
        expect(await store().list(undefined, 1_000_000)).not.toContain(hash);
        expect(await fixture().stagingCount()).toBe(0);
      });
    }

    it('refuses a hash that is not 64 lowercase hex digits, before touching storage', async () => {
      for (const hash of ['../../etc/passwd', sha256(bytes).toUpperCase(), `${sha256(bytes)}0`, '']) {
        await expect(store().put(hash, bytes.length, sourceOf(bytes))).rejects.toBeInstanceOf(TypeError);
        await expect(store().stat(hash)).rejects.toBeInstanceOf(TypeError);
        expect(() => store().read(hash)).toThrow(TypeError);
      }
    });
  });

  describe('ranges', () => {
    const size = 2 * BLOB_CHUNK_BYTES + 100;
    let blob: { hash: string; bytes: Buffer };
    beforeAll(async () => {
      blob = await stored(store(), size);
    });

    const ranges: Array<[string, ByteRange]> = [
      ['the first byte', { start: 0, end: 0 }],
      ['the last byte', { start: size - 1, end: size - 1 }],
      ['bytes across a chunk boundary', { start: BLOB_CHUNK_BYTES - 10, end: BLOB_CHUNK_BYTES + 9 }],
      ['bytes across two chunk boundaries', { start: 5, end: 2 * BLOB_CHUNK_BYTES + 5 }],
      ['the whole blob', { start: 0, end: size - 1 }],
    ];
    for (const [title, range] of ranges) {
      it(`reads ${title}`, async () => {
        const read = await readBytes(store(), blob.hash, range);
        expect(read.equals(blob.bytes.subarray(range.start, range.end + 1))).toBe(true);
      });
    }

    it('fails a range that does not lie within the blob', async () => {
      for (const range of [{ start: 0, end: size }, { start: 10, end: 9 }, { start: -1, end: 3 }]) {
        await expect(readBytes(store(), blob.hash, range)).rejects.toBeInstanceOf(RangeError);
      }
    });
  });

  describe('missing and deleted blobs', () => {
    it('answers null for a blob never stored, fails reading it and deletes it without complaint', async () => {
      const hash = sha256(randomBytes(8));
      expect(await store().stat(hash)).toBeNull();
      await expect(readBytes(store(), hash)).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(readBytes(store(), hash, { start: 0, end: 0 })).rejects.toBeInstanceOf(BlobNotFoundError);
      await store().delete(hash);
    });

    it('deletes one blob and keeps the others; a second delete changes nothing', async () => {
      const [gone, kept] = [await stored(store(), BLOB_CHUNK_BYTES + 3), await stored(store(), 10)];
      await store().delete(gone.hash);
      await store().delete(gone.hash);
      expect(await store().stat(gone.hash)).toBeNull();
      await expect(readBytes(store(), gone.hash)).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(await store().list(undefined, 1_000_000)).not.toContain(gone.hash);
      expect((await readBytes(store(), kept.hash)).equals(kept.bytes)).toBe(true);
      await store().put(gone.hash, gone.bytes.length, sourceOf(gone.bytes));
      expect((await readBytes(store(), gone.hash)).equals(gone.bytes)).toBe(true);
    });
  });

  it('lists every stored hash once, in ascending order, page by page after the last one seen', async () => {
    const ours = await Promise.all(Array.from({ length: 7 }, async () => (await stored(store(), 32)).hash));
    const everything = await store().list(undefined, 1_000_000);
    expect(everything).toEqual([...new Set(everything)].sort());
    expect(everything).toEqual(expect.arrayContaining(ours));
    const walked: string[] = [];
    for (let page = await store().list(undefined, 3); page.length > 0; page = await store().list(page.at(-1), 3)) {
      expect(page.length).toBeLessThanOrEqual(3);
      walked.push(...page);
    }
    expect(walked).toEqual(everything);
    expect(await store().list(everything.at(-1))).toEqual([]);
  });

  describe('a put that does not finish', () => {
    it('stores nothing when the source fails midway, and leaves no staging behind', async () => {
      const bytes = randomBytes(3 * BLOB_CHUNK_BYTES);
      const hash = sha256(bytes);
      await expect(store().put(hash, bytes.length, sourceOf(bytes, 2 * BLOB_CHUNK_BYTES))).rejects.toThrow('the upload broke off');
      expect(await store().stat(hash)).toBeNull();
      await expect(readBytes(store(), hash)).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(await store().list(undefined, 1_000_000)).not.toContain(hash);
      expect(await fixture().stagingCount()).toBe(0);
    });

    it('never shows the staging of a put that died, and removes it with a later put once it is an hour old', async () => {
      const before = await store().list(undefined, 1_000_000);
      await fixture().abandonStaging(STAGING_ABANDONED_MS + 60_000);
      await fixture().abandonStaging(60_000);
      expect(await fixture().stagingCount()).toBe(2);
      expect(await store().list(undefined, 1_000_000)).toEqual(before);
      // A new instance, as after the restart that follows a crash: its first put looks for abandoned staging.
      await stored(store(), 10);
      expect(await fixture().stagingCount()).toBe(1);
    });
  });
}

function fileFixture(dir: string): BlobStoreFixture {
  const stagingDir = join(dir, 'tmp');
  return {
    open: () => new FileBlobStore(dir),
    async abandonStaging(ageMs) {
      await mkdir(stagingDir, { recursive: true });
      const file = join(stagingDir, `blob-${randomUUID()}`);
      await writeFile(file, randomBytes(1000));
      const then = new Date(Date.now() - ageMs);
      await utimes(file, then, then);
    },
    async stagingCount() {
      return (await readdir(stagingDir).catch(() => [])).filter((name) => name.startsWith('blob-')).length;
    },
  };
}

/** The adapter's staging rows are keyed `staging:<13-digit ms>:<random>` (databaseBlobStore.ts). */
function databaseFixture(database: Database): BlobStoreFixture {
  return {
    open: () => new DatabaseBlobStore(database.statements),
    async abandonStaging(ageMs) {
      const key = `staging:${String(Date.now() - ageMs).padStart(13, '0')}:${randomUUID()}`;
      await database.statements.allLarge('INSERT INTO asset_blob_chunks (hash, seq, content) VALUES (?, 0, ?) RETURNING seq', [key, randomBytes(1000)]);
    },
    async stagingCount() {
      const [row] = await database.statements.all<{ count: number | string }>("SELECT COUNT(*) AS count FROM asset_blob_chunks WHERE hash LIKE 'staging:%'", []);
      return Number(row!.count);
    },
  };
}

/** The statements of `database`, counting those that read a chunk's bytes. */
function countingChunkReads(statements: DirectStatements): { statements: DirectStatements; reads: () => number } {
  let reads = 0;
  const counting: DirectStatements = {
    all: (sql, values) => statements.all(sql, values),
    allLarge: (sql, values) => {
      if (sql.startsWith('SELECT content')) reads += 1;
      return statements.allLarge(sql, values);
    },
    close: () => statements.close(),
  };
  return { statements: counting, reads: () => reads };
}

describe('blob store: file adapter', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wb-blobs-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  registerBlobStoreContract(() => fileFixture(dir));
});

forEachStoreAdapter('blob store (database adapter)', (open) => {
  registerBlobStoreContract(() => databaseFixture(open().current));

  it('reads only the chunks a range falls in', async () => {
    const { statements, reads } = countingChunkReads(open().current.statements);
    const store = new DatabaseBlobStore(statements);
    const { hash, bytes } = await stored(store, 4 * BLOB_CHUNK_BYTES);
    const range = { start: 2 * BLOB_CHUNK_BYTES + 1, end: 3 * BLOB_CHUNK_BYTES + 1 };
    expect((await readBytes(store, hash, range)).equals(bytes.subarray(range.start, range.end + 1))).toBe(true);
    expect(reads()).toBe(2);
  });
});
