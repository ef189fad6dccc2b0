import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Db } from '../store/database.js';
import { hashPassword } from './passwords.js';

/** How an email is stored and looked up: unique regardless of case and surrounding spaces. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A user as the admin API answers it. */
export interface UserAccount {
  id: string;
  email: string;
  organizationId: string;
}

/** What login needs of a user: who it is and its password hash. */
export interface UserCredentials {
  id: string;
  organizationId: string;
  passwordHash: string;
}

export interface UserAccountsDependencies {
  db: Db;
  clock: Clock;
}

/** The users of organizations: created by the operator, found by email at login. */
export class UserAccounts {
  constructor(private readonly deps: UserAccountsDependencies) {}

  /** Creates a user of an organization; emails are unique across the service. */
  async create(input: { email: string; password: string; organizationId: string; name?: string }): Promise<UserAccount> {
    const { db, clock } = this.deps;
    const organization = await db.organization.findUnique({ where: { id: input.organizationId } });
    if (!organization) throw errors.notFound('Organization');
    const email = normalizeEmail(input.email);
    if (await this.credentialsByEmail(email)) throw errors.conflict('A user with this email already exists');
    const user = await db.user.create({
      data: {
        id: randomUUID(),
        organizationId: organization.id,
        email,
        name: input.name ?? null,
        passwordHash: await hashPassword(input.password),
        createdAt: clock.now(),
      },
    });
    return { id: user.id, email: user.email, organizationId: user.organizationId };
  }

  /** The user with this email (normalized here), or null. */
  async credentialsByEmail(email: string): Promise<UserCredentials | null> {
    return this.deps.db.user.findUnique({ where: { email: normalizeEmail(email) }, select: { id: true, organizationId: true, passwordHash: true } });
  }
}
