import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Webhook-Signature`: lowercase hex HMAC-SHA256 of the raw request body, keyed with the
 * subscription secret taken as ASCII bytes (the 64-character hex string itself, as GitHub
 * does; docs/webhooks.md).
 */
export function signWebhookBody(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * Checks a delivery's signature in constant time. Pass the body exactly as received, before
 * any JSON parsing. Returns false for a missing or malformed signature.
 *
 * @example
 * app.post('/hooks', express.raw({ type: 'application/json' }), (req, res) => {
 *   if (!verifyWebhookSignature(req.body, req.header('X-Webhook-Signature'), process.env.WHITEBOARD_WEBHOOK_SECRET!)) return res.sendStatus(401);
 *   const delivery = JSON.parse(req.body.toString('utf8'));
 *   res.sendStatus(204);
 * });
 */
export function verifyWebhookSignature(rawBody: string | Buffer, signature: string | undefined | null, secret: string): boolean {
  if (!signature || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = Buffer.from(signWebhookBody(rawBody, secret), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
