import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deflatedZeros, manifestJson, overlappingZip, rawZipOf, validPackageFiles, zipOf, type RawEntrySpec } from '../../test/helpers/zipBuilder.js';
import { AppError } from '../errors.js';
import { readComponentPackage } from './componentPackage.js';

const MiB = 1024 * 1024;
/** Generous: a hostile archive is refused in milliseconds; this catches hangs and runaway inflation. */
const DEADLINE_MS = 2_000;
const RSS_BOUND = 100 * MiB;

/** 256 MiB of zeros, deflated (about 256 KiB): over the RSS bound, so only stopping early keeps under it. */
let bigKernel: Promise<Buffer> | undefined;
function bombKernel(): Promise<Buffer> {
  bigKernel ??= deflatedZeros(256 * MiB);
  return bigKernel;
}

/** The valid package as raw entries, to which a test adds one hostile entry. */
function validEntries(): RawEntrySpec[] {
  return validPackageFiles().map(({ name, content }) => ({ name, content }));
}

interface Attempt {
  error: unknown;
  ms: number;
  /** Peak RSS during the read over RSS before it. */
  rssGrowth: number;
}

/** Reads `zip`, giving up after the deadline, sampling RSS as it goes. */
async function attempt(zip: Buffer): Promise<Attempt> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still reading at the deadline'), DEADLINE_MS)));
  let error: unknown = 'the archive was accepted';
  try {
    const outcome = await Promise.race([readComponentPackage(zip), deadline]);
    if (typeof outcome === 'string') error = outcome;
  } catch (caught) {
    error = caught;
  } finally {
    clearInterval(sampler);
    clearTimeout(timer);
  }
  const ms = performance.now() - started;
  peak = Math.max(peak, process.memoryUsage().rss);
  return { error, ms, rssGrowth: peak - before };
}

/** Asserts a quick 422 whose details hold `field` (with `message`, when given); returns the error. */
async function expectRefused(zip: Buffer, field: string | RegExp, message?: RegExp): Promise<AppError> {
  const { error, ms, rssGrowth } = await attempt(zip);
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.kind).toBe('unprocessable');
  const matching = (appError.details ?? []).filter((detail) => (typeof field === 'string' ? detail.field === field : field.test(detail.field)));
  expect(matching, JSON.stringify(appError.details)).not.toHaveLength(0);
  if (message) expect(matching.map((detail) => detail.message).join(' | ')).toMatch(message);
  expect(ms).toBeLessThan(DEADLINE_MS);
  expect(rssGrowth, `RSS grew ${Math.round(rssGrowth / MiB)} MiB`).toBeLessThan(RSS_BOUND);
  return appError;
}

describe('readComponentPackage: packages it accepts', () => {
  it('reads a package of manifest, entry page and script with their paths, bytes and content types', async () => {
    const files = validPackageFiles();
    const read = await readComponentPackage(await zipOf(files));
    const byPath = Object.fromEntries(read.files.map((file) => [file.path, file]));
    expect(Object.keys(byPath).sort()).toEqual(['assets/app.js', 'index.html', 'manifest.json']);
    for (const file of files) expect(byPath[file.name]!.bytes.equals(Buffer.from(file.content))).toBe(true);
    expect(byPath['index.html']!.contentType).toBe('text/html; charset=utf-8');
    expect(byPath['assets/app.js']!.contentType).toBe('text/javascript; charset=utf-8');
    expect(byPath['manifest.json']!.contentType).toBe('application/json; charset=utf-8');
    expect(read.totalBytes).toBe(files.reduce((sum, file) => sum + Buffer.byteLength(file.content), 0));
    expect(read.manifest).toMatchObject({ name: 'counter', version: '1.0.0', entry: 'index.html' });
  });

  it('reads stored entries and skips directory entries', async () => {
    const zip = rawZipOf([{ name: 'assets/', method: 'store' }, ...validEntries().map((entry) => ({ ...entry, method: 'store' as const }))]);
    const read = await readComponentPackage(zip);
    expect(read.files.map((file) => file.path).sort()).toEqual(['assets/app.js', 'index.html', 'manifest.json']);
  });

  it('accepts a Zip64 archive whose sizes are sane (Z17)', async () => {
    const read = await readComponentPackage(await zipOf(validPackageFiles(), { zip64: true }));
    expect(read.files).toHaveLength(3);
    expect(read.manifest.name).toBe('counter');
  });

  it('accepts the limits themselves: 50 files, a file of exactly 5 MiB, a path 8 segments deep', async () => {
    const scripts = Array.from({ length: 45 }, (_, index) => ({ name: `assets/f${index}.js`, content: `//${index}` }));
    const big = { name: 'assets/big.png', content: randomBytes(5 * MiB), method: 'store' as const };
    const deep = { name: 'a/b/c/d/e/f/g/deep.js', content: '//deep' };
    const read = await readComponentPackage(await zipOf([...validPackageFiles(), ...scripts, big, deep]));
    expect(read.files).toHaveLength(50);
    expect(read.files.find((file) => file.path === 'assets/big.png')!.bytes.length).toBe(5 * MiB);
  });
});

describe('readComponentPackage: names that could leave the package (Z1, Z2)', () => {
  const cases: [string, string | Buffer, string | RegExp, RegExp][] = [
    ['climbing out', '../../evil.js', 'bundle.../../evil.js', /leaves the package/],
    ['a backslash', '..\\evil.js', /^bundle\.\.\..*evil\.js$/, /backslash/],
    ['an absolute path', '/etc/passwd.txt', 'bundle./etc/passwd.txt', /absolute/],
    ['a drive letter', 'C:/x.js', 'bundle.C:/x.js', /absolute/],
    ['a climb in the middle', 'a/../../b.js', 'bundle.a/../../b.js', /leaves the package/],
    ['the sibling-prefix bypass of unzipper', '../components-evil/x.js', 'bundle.../components-evil/x.js', /leaves the package/],
    ['a NUL byte', 'index.html\u0000.js', /^bundle\.index\.html.*\.js$/, /control characters/],
    ['bytes that are not UTF-8', Buffer.from([0x61, 0xff, 0xfe, 0x2e, 0x6a, 0x73]), /^bundle\.a/, /invalid UTF-8/],
    ['a `.` segment', './other.html', 'bundle../other.html', /not normalised/],
    ['an empty segment', 'assets//x.js', 'bundle.assets//x.js', /not normalised/],
    ['a name over 255 bytes', `${'a'.repeat(253)}.js`, /^bundle\.a+$/, /255 bytes/],
    ['nesting 9 segments deep', 'a/b/c/d/e/f/g/h/deep.js', 'bundle.a/b/c/d/e/f/g/h/deep.js', /segments/],
  ];
  it.each(cases)('refuses %s', async (_title, name, field, message) => {
    await expectRefused(rawZipOf([...validEntries(), { name, content: 'alert(1)' }]), field, message);
  });
});

describe('readComponentPackage: entries it refuses to read (Z3, Z7, Z10, Z11)', () => {
  it('refuses a symbolic link, even to an allowed name (Z3)', async () => {
    const link = { name: 'link.js', content: '/etc/passwd', method: 'store' as const, unixMode: 0o120777 };
    await expectRefused(rawZipOf([...validEntries(), link]), 'bundle.link.js', /symbolic link/);
  });

  it('refuses a FIFO and a device, and accepts a regular Unix file beside them', async () => {
    const fifo = { name: 'pipe.js', content: '', unixMode: 0o010644 };
    const device = { name: 'dev.js', content: '', unixMode: 0o020644 };
    const regular = { name: 'ok.js', content: '//ok', unixMode: 0o100644 };
    const error = await expectRefused(rawZipOf([...validEntries(), fifo, device, regular]), 'bundle.pipe.js', /special file/);
    expect(error.details!.map((detail) => detail.field).sort()).toEqual(['bundle.dev.js', 'bundle.pipe.js']);
  });

  it('refuses an encrypted entry (Z10)', async () => {
    await expectRefused(rawZipOf([...validEntries(), { name: 'secret.js', content: 'x', flags: 0x1 }]), 'bundle.secret.js', /encrypted/);
  });

  it('refuses compression method 99 (AES) and other unknown methods', async () => {
    const zip = rawZipOf([...validEntries(), { name: 'aes.js', content: 'x', method: 99 }, { name: 'bzip.js', content: 'x', method: 12 }]);
    const error = await expectRefused(zip, 'bundle.aes.js', /method 99/);
    expect(error.details!.some((detail) => detail.field === 'bundle.bzip.js')).toBe(true);
  });

  it('refuses two names that differ only in case (Z11)', async () => {
    await expectRefused(rawZipOf([...validEntries(), { name: 'Index.html', content: '<p>' }]), 'bundle.Index.html', /twice/);
  });

  it('refuses two names that differ only in Unicode normalisation', async () => {
    const nfc = 'caf\u00e9.js';
    const nfd = 'cafe\u0301.js';
    await expectRefused(rawZipOf([...validEntries(), { name: nfc, content: '1' }, { name: nfd, content: '2' }]), `bundle.${nfc}`, /twice/);
  });

  it.each([['inner.zip'], ['bundle.tar.gz'], ['server.php'], ['run.exe'], ['Makefile'], ['index.html.']])(
    'refuses %s: its type is not on the allow-list, so a nested archive is never opened (Z7)',
    async (name) => {
      await expectRefused(await zipOf([...validPackageFiles(), { name, content: randomBytes(64) }]), `bundle.${name}`, /file type/);
    },
  );
});

describe('readComponentPackage: counts, sizes and bombs (Z4, Z5, Z8, Z9)', () => {
  it('refuses 51 files (Z4)', async () => {
    const scripts = Array.from({ length: 48 }, (_, index) => ({ name: `f${index}.js`, content: '' }));
    await expectRefused(await zipOf([...validPackageFiles(), ...scripts]), 'bundle', /51/);
  });

  it('refuses a file of 5 MiB + 1 byte (Z5)', async () => {
    const big = { name: 'big.png', content: randomBytes(5 * MiB + 1), method: 'store' as const };
    await expectRefused(await zipOf([...validPackageFiles(), big]), 'bundle.big.png', /5242881/);
  });

  it('refuses files that together declare more than 25 MiB, before inflating any', async () => {
    // 26 × 1 MiB: each entry stays at the ratio floor, so only the total can refuse them.
    const parts = Array.from({ length: 26 }, (_, index) => ({ name: `part${index}.js`, content: randomBytes(1024), method: 'store' as const, declaredSize: MiB }));
    await expectRefused(rawZipOf([...validEntries(), ...parts]), 'bundle', /inflates to/);
  });

  it('refuses an entry that compresses over 100 to 1', async () => {
    const zeros = { name: 'zeros.js', compressed: await deflatedZeros(2 * MiB), declaredSize: 2 * MiB, crc: 0 };
    await expectRefused(rawZipOf([...validEntries(), zeros]), 'bundle.zeros.js', /to 1/);
  });

  it('stops inflating an entry that declares 1 KiB and inflates to 50 MiB (Z9)', async () => {
    const bomb = { name: 'bomb.js', compressed: await deflatedZeros(50 * MiB), declaredSize: 1024, crc: 0 };
    await expectRefused(rawZipOf([...validEntries(), bomb]), 'bundle.bomb.js', /more bytes than it declares/);
  });

  it('refuses an entry the central directory calls empty while its local header holds data', async () => {
    // unzipper reads the local header's sizes and method when the directory's compressed size is 0.
    const bomb = { name: 'bomb.js', compressed: await deflatedZeros(MiB), declaredSize: MiB, crc: 0, central: { compressedSize: 0, uncompressedSize: 0 } };
    await expectRefused(rawZipOf([...validEntries(), bomb]), 'bundle.bomb.js');
  });

  it('stops inflating an entry whose size is the Zip64 marker 0xffffffff without a Zip64 field', async () => {
    // unzipper turns the size into `undefined`; every comparison with it is false, so nothing may bound the inflation.
    const bomb = { name: 'bomb.js', compressed: await bombKernel(), declaredSize: 0xffffffff, crc: 0 };
    await expectRefused(rawZipOf([...validEntries(), bomb]), 'bundle.bomb.js');
  });

  it('refuses an entry that inflates to fewer bytes than it declares', async () => {
    await expectRefused(rawZipOf([...validEntries(), { name: 'short.js', content: 'abc', declaredSize: 100 }]), 'bundle.short.js', /fewer bytes/);
  });

  it('refuses entries sharing one compressed kernel, each within every per-file limit (Z8, overlap)', async () => {
    // 20 × 1 MiB: no entry reaches the ratio floor and the total stays under 25 MiB; only the overlap gives it away.
    await expectRefused(overlappingZip(20, MiB), 'bundle', /overlap/);
  });

  it('refuses a Fifield-shaped bomb declaring 250 MiB quickly (Z8)', async () => {
    await expectRefused(overlappingZip(50, 5 * MiB), /^bundle/);
  });

  it('refuses an end record forging 65,535 entries before walking the directory', async () => {
    // 0xffff in the classic record means "see the Zip64 record"; with none, the archive is unreadable.
    await expectRefused(rawZipOf(validEntries(), { declaredEntryCount: 0xffff }), 'bundle');
  });

  it('refuses a Zip64 end record declaring 2^40 entries', async () => {
    await expectRefused(rawZipOf(validEntries(), { zip64EntryCount: 2n ** 40n }), 'bundle', /entries/);
  });

  it('refuses a Zip64 count announced only by the disk number 0xffff, without walking it', async () => {
    // unzipper treats disk 0xffff as "see the Zip64 record" and allocates per declared entry
    // before reading any (3e6 ≈ 400 MiB; 2^32-1 exhausts the heap). The pre-check must agree.
    const zip = rawZipOf(validEntries(), { zip64EntryCount: 3_000_000n });
    const end = zip.length - 22;
    zip.writeUInt16LE(0xffff, end + 4);
    zip.writeUInt16LE(3, end + 8);
    zip.writeUInt16LE(3, end + 10);
    zip.writeUInt32LE(zip.readUInt32LE(end - 20 - 56 + 48), end + 16);
    await expectRefused(zip, 'bundle');
  });

  it('does not let an end record forged inside the comment hide the real entry count', async () => {
    // unzipper takes the first end signature of the last 80 bytes, the pre-check the last one.
    const fake = Buffer.alloc(22);
    fake.writeUInt32LE(0x06054b50, 0);
    fake.writeUInt16LE(3, 8);
    fake.writeUInt16LE(3, 10);
    // More entries than the directory may hold (200, folders included), behind a record claiming 3.
    const folders = Array.from({ length: 250 }, (_, index) => ({ name: `d${index}/`, method: 'store' as const }));
    await expectRefused(rawZipOf([...validEntries(), ...folders], { comment: fake }), 'bundle');
  });
});

describe('readComponentPackage: bytes that are not a ZIP (Z16)', () => {
  it.each([
    ['no bytes', async () => Buffer.alloc(0)],
    ['garbage', async () => Buffer.alloc(4096, 0x41)],
    ['the first half of an archive', async () => halve(await zipOf(validPackageFiles()))],
    ['an archive missing its last byte', async () => (await zipOf(validPackageFiles())).subarray(0, -1)],
    ['an archive with bytes cut from the middle', async () => cutMiddle(await zipOf(validPackageFiles()))],
    ['an end record pointing past the end', async () => pointPastEnd(rawZipOf(validEntries()))],
    ['a lone end record', async () => rawZipOf([], { declaredEntryCount: 3 })],
  ])('refuses %s with a 422', async (_title, build) => {
    await expectRefused(await build(), /^bundle/);
  });

  it('refuses an entry whose deflated bytes are corrupt, naming it', async () => {
    const zip = rawZipOf([...validEntries(), { name: 'broken.js', compressed: Buffer.alloc(64, 0xff), declaredSize: 100, crc: 0 }]);
    await expectRefused(zip, 'bundle.broken.js', /corrupt/);
  });
});

describe('readComponentPackage: the manifest (Z12, Z13, Z14)', () => {
  it('refuses a package without manifest.json', async () => {
    const files = validPackageFiles().filter((file) => file.name !== 'manifest.json');
    await expectRefused(await zipOf(files), 'bundle.manifest.json', /required/);
  });

  it('refuses a manifest only at pkg/manifest.json (Z12)', async () => {
    const files = validPackageFiles().map((file) => ({ ...file, name: `pkg/${file.name}` }));
    await expectRefused(await zipOf(files), 'bundle.manifest.json', /required/);
  });

  it('refuses a manifest whose entry file the ZIP does not hold', async () => {
    const files = validPackageFiles().filter((file) => file.name !== 'index.html');
    await expectRefused(await zipOf(files), 'manifest.entry', /index\.html/);
  });

  it('refuses a manifest carrying __proto__, leaving Object.prototype alone (Z13)', async () => {
    const manifest = `{"__proto__":{"admin":true},${manifestJson().slice(1)}`;
    const files = [{ name: 'manifest.json', content: manifest }, ...validPackageFiles().slice(1)];
    await expectRefused(await zipOf(files), /^manifest/);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it.each([[{ name: 'Latest' }], [{ name: '../x' }], [{ version: '1.0' }]])('refuses the manifest fields %j (Z14)', async (overrides) => {
    const files = [{ name: 'manifest.json', content: manifestJson(overrides) }, ...validPackageFiles().slice(1)];
    await expectRefused(await zipOf(files), /^manifest\.(name|version)$/);
  });
});

function halve(zip: Buffer): Buffer {
  return zip.subarray(0, Math.floor(zip.length / 2));
}

function cutMiddle(zip: Buffer): Buffer {
  return Buffer.concat([zip.subarray(0, 40), zip.subarray(80)]);
}

/** Moves the central directory offset of the end record past the archive. */
function pointPastEnd(zip: Buffer): Buffer {
  const copy = Buffer.from(zip);
  copy.writeUInt32LE(copy.length + 1000, copy.length - 22 + 16);
  return copy;
}
