import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { AppError, errors } from '../errors.js';
import { parseThread } from './parseThread.js';

/** Largest JSON body the API reads, in bytes once decompressed: 10 MB (413 beyond it). */
export const JSON_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * How much structure a body may hold, counted on its bytes as they arrive, before anything is
 * parsed. Parsing and checking cost far more per value than per byte: ten megabytes of `0,` or
 * `"k":0,` are over a million values and seconds of work on the event loop, where a ten-megabyte
 * string is one value. Counted first, a body's work is bounded whatever its shape.
 */
export const BODY_STRUCTURE_LIMITS = {
  /**
   * Values, counted as their opening brackets, commas and colons (about one per value, key or
   * array item). A board created with 5,000 initial objects of a few fields each fits; parsing
   * and checking this many takes a few tens of milliseconds.
   */
  maxValues: 100_000,
  /**
   * Levels of nesting: each costs the parser several times what a flat value does. Far beyond
   * what the API accepts (a body 64 levels, a free-form value 32), which the checks after
   * parsing refuse with the field named; this only keeps the parser's work short.
   */
  maxDepth: 10_000,
} as const;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Counts a JSON text's values and nesting chunk by chunk, without parsing it. It only needs
 * to know whether a byte lies inside a string: UTF-8 never uses the bytes of `"{}[],:\` inside
 * a multi-byte character, so the bytes can be read as they come, and inside a string it jumps
 * from one quote or backslash to the next (a long string costs a search, not a loop).
 */
class StructureCount {
  private inString = false;
  private escaped = false;
  private depth = 0;
  private values = 0;

  /** The bound the text breaks so far, or null. */
  feed(chunk: Buffer): string | null {
    const { maxValues, maxDepth } = BODY_STRUCTURE_LIMITS;
    let nextQuote = -1;
    let nextBackslash = -1;
    for (let index = 0; index < chunk.length; index += 1) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        if (nextQuote < index) nextQuote = positionOf(chunk, QUOTE, index);
        if (nextBackslash < index) nextBackslash = positionOf(chunk, BACKSLASH, index);
        index = Math.min(nextQuote, nextBackslash);
        if (index === chunk.length) break;
        if (chunk[index] === BACKSLASH) this.escaped = true;
        else this.inString = false;
        continue;
      }
      const byte = chunk[index];
      if (byte === QUOTE) this.inString = true;
      else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) this.depth -= 1;
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT || byte === COMMA || byte === COLON) {
        if ((byte === OPEN_ARRAY || byte === OPEN_OBJECT) && (this.depth += 1) > maxDepth) return `nests deeper than ${maxDepth} levels`;
        if ((this.values += 1) > maxValues) return `holds more than ${maxValues} values`;
      }
    }
    return null;
  }
}

/** Where `byte` next occurs in `chunk` from `from`, or the chunk's length. */
function positionOf(chunk: Buffer, byte: number, from: number): number {
  const found = chunk.indexOf(byte, from);
  return found === -1 ? chunk.length : found;
}

/** Whether the request declares a body (a length, or chunked transfer). */
export function declaresBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/** `application/json` and `application/<anything>+json` are read as JSON; other types are left unread, as if absent. */
function isJson(req: IncomingMessage): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type);
}

/** JSON is UTF-8 (RFC 8259); a body declared in another charset is refused rather than misread. */
function charsetProblem(req: IncomingMessage): AppError | null {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8' ? null : errors.badRequest('Unsupported request body encoding');
}

/** The body's bytes as sent, decompressed when `Content-Encoding` says so. */
function decodedStream(req: IncomingMessage): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  switch (encoding) {
    case 'identity':
      return req;
    case 'gzip':
    case 'x-gzip':
      return req.pipe(createGunzip());
    case 'deflate':
      return req.pipe(createInflate());
    case 'br':
      return req.pipe(createBrotliDecompress());
    default:
      throw errors.badRequest('Unsupported request body encoding');
  }
}

const tooLarge = () => errors.payloadTooLarge(`Request body exceeds the ${JSON_BODY_LIMIT_BYTES / 1_048_576} MB limit`);

/**
 * Reads and parses a JSON request body: undefined when there is none or it is not JSON. 413
 * past JSON_BODY_LIMIT_BYTES (declared or found); 400 when it breaks BODY_STRUCTURE_LIMITS, is
 * malformed, does not decompress, or is declared in a charset other than UTF-8. A refused body
 * is left unread: the error renderer answers and throws the rest away (unreadBody.ts). The body
 * is counted chunk by chunk as it arrives; a large one is decoded and parsed on the parse thread
 * (parseThread.ts), and the checks after it start in a turn of the event loop of their own.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  if (!declaresBody(req) || req.readableEnded || !isJson(req)) return undefined;
  const refusal = charsetProblem(req);
  if (refusal) throw refusal;
  if (Number(req.headers['content-length'] ?? 0) > JSON_BODY_LIMIT_BYTES) throw tooLarge();
  const bytes = await readBytes(req, decodedStream(req));
  if (bytes.length === 0) return undefined;
  const parsed = await parseThread.parse(bytes);
  if (!parsed) throw errors.badRequest('Malformed JSON in request body');
  await new Promise((resolve) => setImmediate(resolve));
  return parsed.value;
}

/** The body's bytes, their structure counted on the way; stops reading at the first bound broken. */
function readBytes(req: IncomingMessage, stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const count = new StructureCount();
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (error: AppError | null) => {
      stream.off('data', onData).off('end', onEnd).off('error', onError);
      req.off('close', onClose);
      if (!error) return resolve(Buffer.concat(chunks, received));
      if (stream !== req) {
        req.unpipe();
        stream.destroy();
      }
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > JSON_BODY_LIMIT_BYTES) return settle(tooLarge());
      const broken = count.feed(chunk);
      if (broken) return settle(errors.badRequest([`(body) ${broken}`], [{ field: '(body)', message: broken }]));
      chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const onError = () => settle(stream === req ? errors.badRequest('The request body could not be read') : errors.badRequest('The request body could not be decoded'));
    // The client went away before the end: nobody is left to answer.
    const onClose = () => {
      if (!req.complete) settle(errors.badRequest('The request was aborted before its body ended'));
    };
    stream.on('data', onData).on('end', onEnd).on('error', onError);
    req.on('close', onClose);
  });
}
