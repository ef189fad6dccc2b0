import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Webhook signing secrets must be readable by the server (it signs with them), so they are
 * stored encrypted (AES-256-GCM) with a key derived from a server secret, never in clear.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = createHash('sha256').update(`webhook-secrets:${serverSecret}`).digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
  }

  open(sealed: string): string {
    const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(data!), decipher.final()]).toString('utf8');
  }
}

/** A new signing secret: 32 random bytes as 64 lowercase hex characters. */
export function generateSigningSecret(): string {
  return randomBytes(32).toString('hex');
}

/** The part of a secret shown after creation, to tell secrets apart. */
export function secretHint(secret: string): string {
  return `${secret.slice(0, 6)}…`;
}
