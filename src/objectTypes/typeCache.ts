import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { CompiledSchema } from './schemaCompiler.js';

/**
 * How long an organization's set of types is trusted before the database is asked for types
 * registered since (by another instance). Types never change once registered, so what is
 * cached is never wrong, only possibly incomplete for this long.
 */
export const TYPES_REFRESH_MS = 5_000;
/** Organizations whose compiled types are kept; the least recently used goes first. */
const MAX_ORGANIZATIONS = 1_000;

interface Entry {
  types: Map<string, CompiledSchema>;
  /** When the database was last asked; null until it has been. */
  refreshedAt: number | null;
  loading: Promise<void> | null;
}

/** Loads the types an organization has that the cache does not know yet. */
export type LoadNewTypes = (organizationId: string, known: string[]) => Promise<Array<[string, CompiledSchema]>>;

/** Compiled schemas per (organization, type name), so each schema is compiled once per process. */
export class TypeCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly loadNewTypes: LoadNewTypes,
  ) {}

  /**
   * The organization's types. The first call waits for the database; later ones answer at
   * once and, when the set is not fresh, ask the database in the background (socket writes
   * never wait on a periodic query).
   */
  async typesOf(organizationId: string): Promise<ReadonlyMap<string, CompiledSchema>> {
    const entry = this.entry(organizationId);
    const now = this.clock.now().getTime();
    if (entry.refreshedAt !== null && now - entry.refreshedAt < TYPES_REFRESH_MS) return entry.types;
    if (!entry.loading) {
      entry.loading = this.refresh(organizationId, entry).finally(() => {
        entry.loading = null;
      });
      if (entry.refreshedAt !== null) {
        entry.loading.catch((error: unknown) => this.logger.error({ err: error, organization_id: organizationId }, 'object types could not be refreshed'));
      }
    }
    if (entry.refreshedAt === null) await entry.loading;
    return entry.types;
  }

  /** A type just registered here: usable at once, without a database round trip. */
  add(organizationId: string, typeName: string, schema: CompiledSchema): void {
    this.entry(organizationId).types.set(typeName, schema);
  }

  private async refresh(organizationId: string, entry: Entry): Promise<void> {
    const startedAt = this.clock.now().getTime();
    const loaded = await this.loadNewTypes(organizationId, [...entry.types.keys()]);
    for (const [typeName, schema] of loaded) if (!entry.types.has(typeName)) entry.types.set(typeName, schema);
    entry.refreshedAt = startedAt;
  }

  private entry(organizationId: string): Entry {
    let entry = this.entries.get(organizationId);
    if (entry) this.entries.delete(organizationId);
    else entry = { types: new Map(), refreshedAt: null, loading: null };
    this.entries.set(organizationId, entry);
    if (this.entries.size > MAX_ORGANIZATIONS) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }
}
