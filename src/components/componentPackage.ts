import type { File as ZipEntry } from 'unzipper';
import { errors, type AppError, type FieldError } from '../errors.js';
import { parseManifest, type Manifest } from './manifest.js';
import { contentTypeOf, PACKAGE_LIMITS, type PackageLimits } from './packageLimits.js';
import { declaredEntryCount } from './zipDirectory.js';

/** One file of a published component, as it will be served. */
export interface PackageFile {
  /** Normalised path inside the package (`index.html`, `assets/app.js`). */
  path: string;
  bytes: Buffer;
  contentType: string;
}

export interface ComponentPackage {
  manifest: Manifest;
  files: PackageFile[];
  totalBytes: number;
}

/** Only stored and deflated entries: every other method is unusual enough to refuse. */
const ALLOWED_METHODS = new Set([0, 8]);
const UNIX_HOST = 3;
const FILE_TYPE_MASK = 0o170000;
const REGULAR_OR_DIRECTORY = new Set([0, 0o100000, 0o040000]);

/**
 * Reads an uploaded component ZIP, trusting nothing in it: the entry count and sizes are
 * checked from the central directory before anything is inflated, names are normalised and
 * refused when they could point outside the package, and inflated bytes are counted as they
 * stream (a header that understates them stops the read). Throws a 422 with `details[]`
 * naming each refused entry; nothing is written anywhere.
 */
export async function readComponentPackage(zip: Buffer, limits: PackageLimits = PACKAGE_LIMITS): Promise<ComponentPackage> {
  const count = declaredEntryCount(zip);
  if (count === null) throw refused([{ field: 'bundle', message: 'is not a readable ZIP archive' }]);
  if (count > limits.maxEntries) throw refused([{ field: 'bundle', message: `holds ${count} entries; at most ${limits.maxFiles} files (and ${limits.maxEntries} entries with folders) are allowed` }]);
  let entries: ZipEntry[];
  try {
    // Loaded by the first upload (unzipper and its dependencies are about 8 MiB resident).
    const { default: unzipper } = await import('unzipper');
    entries = (await unzipper.Open.buffer(zip)).files;
  } catch {
    throw refused([{ field: 'bundle', message: 'is not a readable ZIP archive' }]);
  }
  const files = checkEntries(entries, zip.length, limits);
  const inflated: PackageFile[] = [];
  let totalBytes = 0;
  for (const { entry, path, contentType } of files) {
    const bytes = await inflate(entry, path, Math.min(limits.maxFileBytes, limits.maxTotalBytes - totalBytes));
    totalBytes += bytes.length;
    inflated.push({ path, bytes, contentType });
  }
  return { manifest: manifestOf(inflated), files: inflated, totalBytes };
}

interface CheckedEntry {
  entry: ZipEntry;
  path: string;
  contentType: string;
}

/** Every problem of the directory at once (names, types, sizes), before a byte is inflated. */
function checkEntries(entries: ZipEntry[], archiveBytes: number, limits: PackageLimits): CheckedEntry[] {
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  const checked: CheckedEntry[] = [];
  let declaredTotal = 0;
  let compressedTotal = 0;
  for (const entry of entries) {
    const path = normalisedName(entry);
    const field = `bundle.${path.ok ? path.value : printable(entry.path)}`;
    if (!path.ok) {
      problems.push({ field, message: path.problem });
      continue;
    }
    const problem = entryProblem(entry, path.value, limits) ?? duplicate(seen, path.value);
    if (problem) {
      problems.push({ field, message: problem });
      continue;
    }
    if (entry.type === 'Directory') continue;
    declaredTotal += entry.uncompressedSize;
    compressedTotal += entry.compressedSize;
    checked.push({ entry, path: path.value, contentType: contentTypeOf(path.value)! });
  }
  if (checked.length > limits.maxFiles) problems.push({ field: 'bundle', message: `holds ${checked.length} files; at most ${limits.maxFiles} are allowed` });
  if (declaredTotal > limits.maxTotalBytes) problems.push({ field: 'bundle', message: `inflates to ${declaredTotal} bytes; at most ${limits.maxTotalBytes} are allowed` });
  // Entries sharing compressed bytes (an overlapping-entry bomb) declare more than the archive holds.
  if (compressedTotal > archiveBytes) problems.push({ field: 'bundle', message: 'has entries that overlap each other' });
  if (problems.length > 0) throw refused(problems);
  return checked;
}

function entryProblem(entry: ZipEntry, path: string, limits: PackageLimits): string | null {
  // unzipper leaves a size undefined when it says 0xffffffff without its Zip64 field: every
  // comparison below would pass, and the entry would inflate without a bound.
  if (!Number.isSafeInteger(entry.uncompressedSize) || !Number.isSafeInteger(entry.compressedSize)) return 'declares a Zip64 size without its Zip64 field';
  if ((entry.flags & 0x1) !== 0) return 'is encrypted';
  if (entry.versionMadeBy >> 8 === UNIX_HOST && !REGULAR_OR_DIRECTORY.has((entry.externalFileAttributes >>> 16) & FILE_TYPE_MASK)) {
    return 'is a symbolic link or another special file';
  }
  if (entry.type === 'Directory') return null;
  if (!ALLOWED_METHODS.has(entry.compressionMethod)) return `uses compression method ${entry.compressionMethod}; only stored and deflated files are read`;
  if (contentTypeOf(path) === null) return 'has a file type components may not hold';
  if (entry.uncompressedSize > limits.maxFileBytes) return `is ${entry.uncompressedSize} bytes; a file may hold at most ${limits.maxFileBytes}`;
  const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
  if (entry.uncompressedSize > limits.ratioFloorBytes && ratio > limits.maxRatio) return `compresses ${Math.round(ratio)} to 1; at most ${limits.maxRatio} to 1 is allowed`;
  return null;
}

type Name = { ok: true; value: string } | { ok: false; problem: string };

/**
 * The entry's path, NFC-normalised, or why it is refused: anything that is absolute, climbs
 * (`..`), uses backslashes or drive letters, holds control characters, or nests too deep.
 */
function normalisedName(entry: ZipEntry): Name {
  const raw = entry.path;
  if (raw.length === 0) return { ok: false, problem: 'has an empty name' };
  if (entry.pathBuffer.length > PACKAGE_LIMITS.maxNameBytes) return { ok: false, problem: `has a name over ${PACKAGE_LIMITS.maxNameBytes} bytes` };
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(raw) || raw.includes('\ufffd')) return { ok: false, problem: 'has a name with control characters or invalid UTF-8' };
  if (raw.includes('\\')) return { ok: false, problem: 'has a backslash in its name' };
  if (raw.startsWith('/') || /^[a-zA-Z]:/.test(raw)) return { ok: false, problem: 'has an absolute name' };
  const value = raw.normalize('NFC').replace(/\/$/, '');
  const segments = value.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.' || segment === '')) return { ok: false, problem: 'has a name that leaves the package or is not normalised' };
  if (segments.length > PACKAGE_LIMITS.maxDepth) return { ok: false, problem: `has more than ${PACKAGE_LIMITS.maxDepth} path segments` };
  return { ok: true, value };
}

/** Two names a case-insensitive file system would take for one file are refused. */
function duplicate(seen: Set<string>, path: string): string | null {
  const key = path.toLowerCase();
  if (seen.has(key)) return 'appears twice (names are compared ignoring case)';
  seen.add(key);
  return null;
}

/** Inflates one entry, stopping as soon as it yields more than it declared or than `cap`. */
async function inflate(entry: ZipEntry, path: string, cap: number): Promise<Buffer> {
  const limit = Math.min(entry.uncompressedSize, cap);
  const chunks: Buffer[] = [];
  let received = 0;
  const stream = entry.stream();
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > limit) throw refused([{ field: `bundle.${path}`, message: 'inflates to more bytes than it declares' }]);
      chunks.push(chunk);
    }
  } catch (error) {
    stream.destroy();
    if (error instanceof Error && error.name === 'AppError') throw error;
    throw refused([{ field: `bundle.${path}`, message: 'could not be inflated (corrupt data)' }]);
  }
  if (received !== entry.uncompressedSize) throw refused([{ field: `bundle.${path}`, message: 'inflates to fewer bytes than it declares' }]);
  return Buffer.concat(chunks, received);
}

function manifestOf(files: PackageFile[]): Manifest {
  const file = files.find((candidate) => candidate.path === 'manifest.json');
  if (!file) throw refused([{ field: 'bundle.manifest.json', message: 'is required at the root of the ZIP' }]);
  const parsed = parseManifest(file.bytes);
  if (!parsed.ok) throw refused(parsed.details);
  if (!files.some((candidate) => candidate.path === parsed.manifest.entry)) {
    throw refused([{ field: 'manifest.entry', message: `names ${parsed.manifest.entry}, which the ZIP does not hold` }]);
  }
  return parsed.manifest;
}

function refused(details: FieldError[]): AppError {
  return errors.unprocessable(
    details.map((detail) => `${detail.field} ${detail.message}`),
    details,
  );
}

/** A name as it may be shown back (control characters escaped, bounded). */
function printable(name: string): string {
  // eslint-disable-next-line no-control-regex
  return JSON.stringify(name.slice(0, 100)).slice(1, -1).replace(/[\u0000-\u001f]/g, '?');
}
