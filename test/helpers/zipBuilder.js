/**
 * ZIP archives for tests. `zipOf` builds honest archives with yazl (the same bytes a real
 * zip tool would produce). `rawZipOf` is a small hand-written writer for the archives yazl
 * refuses to make: hostile names, symlinks, sizes that lie, forged entry counts, encryption
 * flags, unknown methods. `overlappingZip` builds the Fifield overlapping-entry bomb shape.
 */
import { createDeflateRaw, crc32, deflateRawSync } from 'node:zlib';
import yazl from 'yazl';
/** An honest archive, written by yazl. */
export async function zipOf(files, options = {}) {
    const zip = new yazl.ZipFile();
    const mtime = new Date('2024-01-01T00:00:00Z');
    for (const file of files) {
        zip.addBuffer(bytesOf(file.content), file.name, { compress: file.method !== 'store', mtime, forceZip64Format: options.zip64 === true });
    }
    const chunks = [];
    const done = new Promise((resolve, reject) => {
        zip.outputStream.on('data', (chunk) => chunks.push(chunk));
        zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
        zip.outputStream.on('error', reject);
    });
    zip.end({ forceZip64Format: options.zip64 === true, comment: '' });
    return done;
}
const LOCAL_SIGNATURE = 0x04034b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const END_SIGNATURE = 0x06054b50;
const ZIP64_END_SIGNATURE = 0x06064b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const VERSION_NEEDED = 20;
const MADE_BY_DOS = 20;
const MADE_BY_UNIX = (3 << 8) | 20;
/** 2024-01-01 00:00 in DOS time and date. */
const DOS_TIME = 0;
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1;
const UTF8_FLAG = 0x800;
/** A hostile (or merely unusual) archive, written byte by byte. */
export function rawZipOf(entries, options = {}) {
    const parts = [];
    const written = [];
    let offset = 0;
    for (const spec of entries) {
        const content = bytesOf(spec.content ?? '');
        const method = methodId(spec.method);
        const data = spec.compressed ?? (method === 8 ? deflateRawSync(content) : content);
        const name = typeof spec.name === 'string' ? Buffer.from(spec.name, 'utf8') : spec.name;
        const entry = {
            spec,
            name,
            method,
            flags: (spec.flags ?? 0) | UTF8_FLAG,
            crc: spec.crc ?? crc32(content),
            compressedSize: data.length,
            uncompressedSize: spec.declaredSize ?? content.length,
            offset,
        };
        const header = localHeader(entry);
        parts.push(header, data);
        offset += header.length + data.length;
        written.push(entry);
    }
    const directory = Buffer.concat(written.map(centralHeader));
    parts.push(directory);
    parts.push(endRecords(written.length, directory.length, offset, options));
    return Buffer.concat(parts);
}
/**
 * The overlapping-entry bomb (Fifield, "A better zip bomb"), small: one deflated kernel of
 * `kernelBytes` zero bytes behind one local header, and `count` central-directory entries all
 * pointing at it. Each entry alone is unremarkable; together they declare `count` times the
 * kernel while the archive holds it once.
 */
export function overlappingZip(count, kernelBytes, nameOf = (index) => `f${index}.js`) {
    const content = Buffer.alloc(kernelBytes);
    const data = deflateRawSync(content, { level: 9 });
    const shared = {
        method: 8,
        flags: UTF8_FLAG,
        crc: crc32(content),
        compressedSize: data.length,
        uncompressedSize: kernelBytes,
        offset: 0,
    };
    const header = localHeader({ ...shared, spec: { name: '' }, name: Buffer.from(nameOf(0)) });
    const directory = Buffer.concat(Array.from({ length: count }, (_, index) => centralHeader({ ...shared, spec: { name: '' }, name: Buffer.from(nameOf(index)) })));
    const start = header.length + data.length;
    return Buffer.concat([header, data, directory, endRecords(count, directory.length, start, {})]);
}
/**
 * `bytes` zero bytes, raw-deflated, without ever holding them: a 1 GiB bomb kernel costs about
 * 1 MiB here. Streamed through one shared zero chunk.
 */
export async function deflatedZeros(bytes) {
    const deflate = createDeflateRaw({ level: 9 });
    const chunks = [];
    deflate.on('data', (chunk) => chunks.push(chunk));
    const ended = new Promise((resolve, reject) => {
        deflate.on('end', resolve);
        deflate.on('error', reject);
    });
    const zeros = Buffer.alloc(Math.min(bytes, 1024 * 1024));
    for (let left = bytes; left > 0; left -= zeros.length) {
        const chunk = left >= zeros.length ? zeros : zeros.subarray(0, left);
        if (!deflate.write(chunk))
            await new Promise((resolve) => deflate.once('drain', resolve));
    }
    deflate.end();
    await ended;
    return Buffer.concat(chunks);
}
function localHeader(entry) {
    const header = Buffer.alloc(30);
    header.writeUInt32LE(LOCAL_SIGNATURE, 0);
    header.writeUInt16LE(VERSION_NEEDED, 4);
    header.writeUInt16LE(entry.flags, 6);
    header.writeUInt16LE(entry.method, 8);
    header.writeUInt16LE(DOS_TIME, 10);
    header.writeUInt16LE(DOS_DATE, 12);
    header.writeUInt32LE(entry.crc, 14);
    header.writeUInt32LE(entry.compressedSize, 18);
    header.writeUInt32LE(entry.uncompressedSize, 22);
    header.writeUInt16LE(entry.name.length, 26);
    header.writeUInt16LE(0, 28);
    return Buffer.concat([header, entry.name]);
}
function centralHeader(entry) {
    const central = entry.spec.central ?? {};
    const unix = entry.spec.unixMode !== undefined;
    const header = Buffer.alloc(46);
    header.writeUInt32LE(CENTRAL_SIGNATURE, 0);
    header.writeUInt16LE(unix ? MADE_BY_UNIX : MADE_BY_DOS, 4);
    header.writeUInt16LE(VERSION_NEEDED, 6);
    header.writeUInt16LE(central.flags ?? entry.flags, 8);
    header.writeUInt16LE(central.method ?? entry.method, 10);
    header.writeUInt16LE(DOS_TIME, 12);
    header.writeUInt16LE(DOS_DATE, 14);
    header.writeUInt32LE(entry.crc, 16);
    header.writeUInt32LE(central.compressedSize ?? entry.compressedSize, 20);
    header.writeUInt32LE(central.uncompressedSize ?? entry.uncompressedSize, 24);
    header.writeUInt16LE(entry.name.length, 28);
    // extra length, comment length, disk number start, internal attributes: all 0
    header.writeUInt32LE(unix ? (entry.spec.unixMode << 16) >>> 0 : 0, 38);
    header.writeUInt32LE(entry.offset, 42);
    return Buffer.concat([header, entry.name]);
}
/** The end record, preceded by a Zip64 end record and locator when `zip64EntryCount` is set. */
function endRecords(count, directoryBytes, directoryOffset, options) {
    const comment = bytesOf(options.comment ?? '');
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_SIGNATURE, 0);
    const zip64 = options.zip64EntryCount !== undefined;
    const declared = zip64 ? 0xffff : (options.declaredEntryCount ?? count);
    end.writeUInt16LE(declared, 8);
    end.writeUInt16LE(declared, 10);
    end.writeUInt32LE(directoryBytes, 12);
    end.writeUInt32LE(zip64 ? 0xffffffff : directoryOffset, 16);
    end.writeUInt16LE(comment.length, 20);
    if (!zip64)
        return Buffer.concat([end, comment]);
    const record = Buffer.alloc(56);
    record.writeUInt32LE(ZIP64_END_SIGNATURE, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(MADE_BY_DOS + 25, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(options.zip64EntryCount, 24);
    record.writeBigUInt64LE(options.zip64EntryCount, 32);
    record.writeBigUInt64LE(BigInt(directoryBytes), 40);
    record.writeBigUInt64LE(BigInt(directoryOffset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(ZIP64_LOCATOR_SIGNATURE, 0);
    locator.writeBigUInt64LE(BigInt(directoryOffset + directoryBytes), 8);
    locator.writeUInt32LE(1, 16);
    return Buffer.concat([record, locator, end, comment]);
}
function methodId(method) {
    if (method === undefined || method === 'deflate')
        return 8;
    if (method === 'store')
        return 0;
    return method;
}
function bytesOf(content) {
    return typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
}
/** The smallest manifest parseManifest accepts, with overrides. */
export function manifestJson(overrides = {}) {
    return JSON.stringify({ name: 'counter', version: '1.0.0', title: 'Counter', description: 'Counts', entry: 'index.html', ...overrides });
}
/** The files of a valid component package: manifest, entry page and one script. */
export function validPackageFiles() {
    return [
        { name: 'manifest.json', content: manifestJson() },
        { name: 'index.html', content: '<!doctype html><script src="assets/app.js"></script>' },
        { name: 'assets/app.js', content: 'document.body.textContent = "0";' },
    ];
}
//# sourceMappingURL=zipBuilder.js.map