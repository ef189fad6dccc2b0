import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Db } from '../store/database.js';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './credentials.js';
import type { Plan } from './plans.js';
import { TtlCache } from '../util/ttlCache.js';

/** The development organization's id: the same on every instance, so it is created once. */
const DEVELOPMENT_ORGANIZATION_ID = '00000000-0000-4000-8000-000000000001';

/** An organization as the rest of the service sees it. */
export interface Organization {
  id: string;
  name: string;
  plan: Plan;
}

/** Who an API key authenticates: its organization, and the key itself (rate limits are per key). */
export interface ApiKeyPrincipal {
  organization: Organization;
  apiKeyId: string;
}

/**
 * How long an authenticated key is trusted from memory. Every API-key request looked up the key
 * and its organization (two queries, about a millisecond of CPU through Prisma); a change made on
 * this instance (a new key, a new plan) drops the entries at once.
 */
export const API_KEY_TTL_MS = 5_000;

export interface OrganizationServiceDependencies {
  db: Db;
  clock: Clock;
}

/** Organizations and their API keys (their users are src/users/userAccounts.ts). */
export class OrganizationService {
  /** Recently authenticated keys by key hash (unknown keys are never kept): most requests skip the lookup. */
  private readonly keys = new TtlCache<string, ApiKeyPrincipal>({ ttlMs: API_KEY_TTL_MS, maxEntries: 10_000 });
  /** Recently read plans by organization id, trusted like keys (quota checks read them per request). */
  private readonly plans = new TtlCache<string, { organizationId: string; plan: Plan }>({ ttlMs: API_KEY_TTL_MS, maxEntries: 10_000 });
  /** Told when an organization's plan or API keys change (caches that hold them drop them). */
  private readonly changeListeners: Array<(organizationId: string) => void> = [];

  constructor(private readonly deps: OrganizationServiceDependencies) {}

  /** Creates an organization with a new API key; the plain key is returned only here. */
  async create(input: { name: string; plan: Plan; apiKey?: string; id?: string }): Promise<{ organization: Organization; apiKey: string }> {
    const { db, clock } = this.deps;
    const apiKey = input.apiKey ?? generateApiKey();
    const now = clock.now();
    const id = input.id ?? randomUUID();
    await db.organization.create({
      data: {
        id,
        name: input.name,
        plan: input.plan,
        createdAt: now,
        apiKeys: { create: { id: randomUUID(), keyHash: hashApiKey(apiKey), prefix: apiKeyPrefix(apiKey), createdAt: now } },
      },
    });
    return { organization: { id, name: input.name, plan: input.plan }, apiKey };
  }

  /** The organization an API key belongs to, or null for an unknown key. */
  async authenticate(apiKey: string): Promise<Organization | null> {
    return (await this.authenticateKey(apiKey))?.organization ?? null;
  }

  /** The organization and key id of an API key, or null for an unknown key. */
  async authenticateKey(apiKey: string): Promise<ApiKeyPrincipal | null> {
    const keyHash = hashApiKey(apiKey);
    const cached = this.keys.get(keyHash);
    if (cached) return cached;
    const ticket = this.keys.ticket();
    const row = await this.deps.db.apiKey.findUnique({ where: { keyHash }, include: { organization: true } });
    if (!row) return null;
    const { id, name, plan } = row.organization;
    const principal = { organization: { id, name, plan: plan as Plan }, apiKeyId: row.id };
    this.keys.set(keyHash, principal, ticket);
    return principal;
  }

  /**
   * Replaces every API key of the organization with one new key. The old keys are deleted in
   * the same transaction as the new one is created (one nested write), so they fail at once.
   */
  async regenerateApiKey(id: string): Promise<{ organization: Organization; apiKey: string }> {
    const apiKey = generateApiKey();
    const row = await this.deps.db.organization.update({
      where: { id },
      data: {
        apiKeys: {
          deleteMany: {},
          create: { id: randomUUID(), keyHash: hashApiKey(apiKey), prefix: apiKeyPrefix(apiKey), createdAt: this.deps.clock.now() },
        },
      },
    });
    this.changed(id);
    return { organization: { id: row.id, name: row.name, plan: row.plan as Plan }, apiKey };
  }

  /** Calls `listener` with the organization's id whenever its plan or API keys change on this instance. */
  onChanged(listener: (organizationId: string) => void): void {
    this.changeListeners.push(listener);
  }

  /** Drops what this instance trusts of an organization's keys and plan (another instance changed them). */
  forget(organizationId: string): void {
    this.keys.forgetWhere((principal) => principal.organization.id === organizationId);
    this.plans.forgetWhere((entry) => entry.organizationId === organizationId);
  }

  /** The organization's plan, or null if there is no such organization. */
  async planOf(id: string): Promise<Plan | null> {
    const cached = this.plans.get(id);
    if (cached) return cached.plan;
    const ticket = this.plans.ticket();
    const row = await this.deps.db.organization.findUnique({ where: { id }, select: { plan: true } });
    if (!row) return null;
    this.plans.set(id, { organizationId: id, plan: row.plan as Plan }, ticket);
    return row.plan as Plan;
  }

  async changePlan(id: string, plan: Plan): Promise<Organization> {
    const updated = await this.deps.db.organization.updateMany({ where: { id }, data: { plan } });
    this.changed(id);
    if (updated.count === 0) throw errors.notFound('Organization');
    const row = await this.deps.db.organization.findUniqueOrThrow({ where: { id } });
    return { id: row.id, name: row.name, plan: row.plan as Plan };
  }

  /**
   * Makes sure the operator's bootstrap key works: an organization with this key exists
   * (created if needed) on the given plan. Returns whether it had to be created.
   */
  async ensureBootstrapKey(apiKey: string, plan: Plan): Promise<{ created: boolean }> {
    const existing = await this.authenticate(apiKey);
    if (existing) {
      if (existing.plan !== plan) await this.changePlan(existing.id, plan);
      return { created: false };
    }
    try {
      await this.create({ name: 'Bootstrap organization', plan, apiKey });
    } catch (error) {
      // Instances starting together on a fresh database: another one created it first.
      if ((error as { code?: string }).code === 'P2002' && (await this.authenticate(apiKey))) return { created: false };
      throw error;
    }
    return { created: true };
  }

  /** Creates a development organization when the database has none; returns its key if it did. */
  async ensureDevelopmentOrganization(plan: Plan): Promise<string | null> {
    if ((await this.deps.db.organization.count()) > 0) return null;
    try {
      // One id for it, so instances starting together on an empty database create it once.
      const { apiKey } = await this.create({ name: 'Development organization', plan, id: DEVELOPMENT_ORGANIZATION_ID });
      return apiKey;
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') return null;
      throw error;
    }
  }

  private changed(organizationId: string): void {
    this.forget(organizationId);
    for (const listener of this.changeListeners) listener(organizationId);
  }
}
