/**
 * How many entries a ZIP's end-of-central-directory record declares, read before any parser
 * walks the directory: a forged count (65,535, or 2^40 in a Zip64 record) would otherwise have
 * the parser allocate and iterate that many records. Null when the buffer holds no readable record.
 */
export function declaredEntryCount(zip: Buffer): number | null {
  const end = findEndOfCentralDirectory(zip);
  if (end === null) return null;
  const disk = zip.readUInt16LE(end + 4);
  const count = zip.readUInt16LE(end + 10);
  const offset = zip.readUInt32LE(end + 16);
  // The markers that send a reader to the Zip64 record (as unzipper reads them).
  if (disk !== 0xffff && count !== 0xffff && offset !== 0xffffffff) return count;
  return zip64EntryCount(zip, end);
}

const END_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_END_SIGNATURE = 0x06064b50;
/** Where unzipper looks for the record: the archive's last 80 bytes (so a comment of at most 58). */
const END_SEARCH_BYTES = 80;

/**
 * The record exactly as unzipper finds it: the first signature in the last 80 bytes. Reading
 * any other one (the last, say) would let a forged record in the comment hide the real count.
 */
function findEndOfCentralDirectory(zip: Buffer): number | null {
  const from = Math.max(0, zip.length - END_SEARCH_BYTES);
  const at = zip.indexOf(END_SIGNATURE, from);
  return at < 0 || at + 22 > zip.length ? null : at;
}

function zip64EntryCount(zip: Buffer, end: number): number | null {
  const locator = end - 20;
  if (locator < 0 || zip.readUInt32LE(locator) !== ZIP64_LOCATOR_SIGNATURE) return null;
  const recordAt = zip.readBigUInt64LE(locator + 8);
  if (recordAt > BigInt(zip.length - 56)) return null;
  const record = Number(recordAt);
  if (zip.readUInt32LE(record) !== ZIP64_END_SIGNATURE) return null;
  const count = zip.readBigUInt64LE(record + 32);
  return count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(count);
}
