import { randomBytes } from 'node:crypto';
import type { Db } from './database.js';

/**
 * Returns the server secret called `name`, creating a random one the first time.
 * Every instance sharing the database gets the same value; a concurrent first start
 * loses the insert race and reads the winner's secret.
 */
export async function serverSecret(db: Db, name: string, now: Date): Promise<string> {
  const existing = await db.serverSecret.findUnique({ where: { name } });
  if (existing) return existing.value;
  try {
    const created = await db.serverSecret.create({
      data: { name, value: randomBytes(32).toString('base64url'), createdAt: now },
    });
    return created.value;
  } catch {
    const winner = await db.serverSecret.findUnique({ where: { name } });
    if (!winner) throw new Error(`could not create server secret ${name}`);
    return winner.value;
  }
}
