import busboy from 'busboy';
import type { Request } from 'express';
import { AppError, errors } from '../errors.js';

/** A parsed `multipart/form-data` body: its text fields and its one file. */
export interface UploadedForm {
  fields: Map<string, string>;
  file: { field: string; bytes: Buffer } | null;
}

export interface MultipartLimits {
  /** The file's bytes (413 above). */
  fileBytes: number;
  /** The names the file may be sent under. */
  fileFields: readonly string[];
}

/** Room for the multipart framing and a few small fields around the file. */
const FRAMING_BYTES = 64 * 1024;

/**
 * Reads a multipart body with busboy, streaming, within limits: one file of at most
 * `fileBytes` under one of `fileFields`, a few short fields. A body declared or found larger is
 * a 413, anything malformed a 400; reading stops there, and the error renderer throws the rest
 * away before it closes the connection (unreadBody.ts).
 */
export function readMultipart(req: Request, limits: MultipartLimits): Promise<UploadedForm> {
  const declared = Number(req.header('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limits.fileBytes + FRAMING_BYTES) return Promise.reject(tooLarge(limits));
  if (!/^multipart\/form-data\b/i.test(req.header('content-type') ?? '')) {
    return Promise.reject(errors.badRequest('The body must be multipart/form-data'));
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: limits.fileBytes, files: 1, fields: 8, fieldSize: 4096, parts: 10, headerPairs: 20 } });
    } catch {
      return reject(errors.badRequest('The multipart body is malformed'));
    }
    const form: UploadedForm = { fields: new Map(), file: null };
    let failure: AppError | null = null;
    const fail = (error: AppError) => {
      failure ??= error;
      req.unpipe(parser);
      reject(failure);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(errors.badRequest(`The form field ${name.slice(0, 50)} is too long`));
      form.fields.set(name, value);
    });
    parser.on('file', (name, stream) => {
      if (!limits.fileFields.includes(name)) {
        stream.resume();
        return fail(errors.badRequest(`The file must be sent as ${limits.fileFields.join(' or ')}`));
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(tooLarge(limits)));
      stream.on('end', () => {
        if (!failure) form.file = { field: name, bytes: Buffer.concat(chunks) };
      });
    });
    parser.on('filesLimit', () => fail(errors.badRequest('Send one file only')));
    parser.on('partsLimit', () => fail(errors.badRequest('The form has too many parts')));
    parser.on('fieldsLimit', () => fail(errors.badRequest('The form has too many fields')));
    parser.on('error', () => fail(errors.badRequest('The multipart body is malformed')));
    parser.on('close', () => {
      if (!failure) resolve(form);
    });
    req.pipe(parser);
  });
}

function tooLarge(limits: MultipartLimits): AppError {
  return errors.payloadTooLarge(`The bundle may be at most ${limits.fileBytes} bytes`);
}
