/**
 * How long an authenticated key is trusted from memory. Every API-key request looked up the key
 * and its organization (two queries, about a millisecond of CPU through Prisma); a change made on
 * this instance (a new key, a new plan) drops the entries at once, one made on another instance
 * shows within this long.
 */
export const API_KEY_TTL_MS = 5_000;
/** Keys kept; the least recently authenticated goes first. Unknown keys are never kept. */
const MAX_KEYS = 10_000;

/** Whom a key authenticates: at least its organization. */
interface Principal {
  organization: { id: string };
}

/** Principals of recently authenticated API keys, by key hash. */
export class ApiKeyCache<P extends Principal> {
  private readonly entries = new Map<string, { principal: P; until: number }>();

  get(keyHash: string): P | null {
    const entry = this.entries.get(keyHash);
    if (!entry) return null;
    this.entries.delete(keyHash);
    if (entry.until <= Date.now()) return null;
    this.entries.set(keyHash, entry);
    return entry.principal;
  }

  set(keyHash: string, principal: P): void {
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { principal, until: Date.now() + API_KEY_TTL_MS });
    if (this.entries.size > MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Forgets every key of an organization (its keys or its plan changed here). */
  forgetOrganization(organizationId: string): void {
    for (const [keyHash, entry] of this.entries) {
      if (entry.principal.organization.id === organizationId) this.entries.delete(keyHash);
    }
  }
}
