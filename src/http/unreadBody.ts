import type { IncomingMessage, ServerResponse } from 'node:http';
import { declaresBody } from './jsonBody.js';

/**
 * Most bytes of a body read and thrown away after it was refused, while its answer waits to be
 * ended (a few times the largest body any route reads: 10 MB of JSON, a 10 MB bundle); a
 * client still sending past them is cut off.
 */
export const MAX_DISCARDED_BYTES = 64 * 1024 * 1024;

/** Whether the client may still be sending a body that no one has read to its end. */
export function hasUnreadBody(req: IncomingMessage): boolean {
  return declaresBody(req) && !req.complete;
}

/**
 * Answers with a JSON body while the client is still sending a body no one will read, without
 * resetting the connection. Closing a socket with the client's bytes still unread makes the
 * kernel answer them with a TCP reset, and a client still sending reports a broken pipe
 * instead of the answer (curl, Node's fetch). So the answer is written whole, with
 * `Connection: close`, the rest of the body is read and thrown away, and only then is the
 * answer ended, which closes the connection cleanly (RFC 9112 section 9.6). A client that
 * stops sending (curl does on an early answer) ends it too.
 */
export function answerWhileDiscarding(req: IncomingMessage, res: ServerResponse, statusCode: number, json: string): void {
  res.statusCode = statusCode;
  res.setHeader('Connection', 'close');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.write(json);
  const end = () => {
    if (!res.writableEnded) res.end();
  };
  // The client may be gone already: nothing more will arrive.
  if (req.destroyed) return end();
  let discarded = 0;
  // A reader that gave up (a multipart parser) may still be attached.
  req.unpipe();
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARDED_BYTES) req.socket.destroy();
  });
  req.once('end', end).once('close', end);
  req.resume();
}
