import { Ajv, type ValidateFunction } from 'ajv';
import { AppError, type FieldError } from '../errors.js';
import type { Db } from '../store/database.js';
import { fieldOf, messageOf } from '../util/ajvErrors.js';
import { LoadedCache } from '../util/loadedCache.js';
import type { ComponentFiles } from './componentFiles.js';
import { propsSchema, type Manifest } from './manifest.js';
import { registryReference, type RegistryReference } from './registryPaths.js';

/** A version of a component as boards use it: its manifest (defaults applied) and whether it still exists. */
export interface ResolvedComponent {
  name: string;
  /** The exact version (`latest` resolved). */
  version: string;
  manifest: Manifest;
  /** Deleted by its author: its files answer 410 and boards show an error in its place. */
  deleted: boolean;
  /**
   * Why `props` breaks the manifest's `props` (fields named from `field`), filling in the
   * default of every prop it lacks: the object passed is changed in place.
   */
  propsProblems(props: unknown, field: string): FieldError[];
}

/** Versions whose manifest and compiled props check are kept (published versions never change). */
const MAX_VERSIONS = 1_000;

/**
 * Manifests of published versions, by the URL boards name them with. A version's manifest
 * never changes, so it is read and compiled once; whether it is deleted, and what `latest`
 * names, come from the registry's version list (trusted for a few seconds, like the files).
 */
export class ComponentManifests {
  private readonly ajv = new Ajv({ strict: false, useDefaults: true, allErrors: true, coerceTypes: false });
  private readonly byVersionId = new LoadedCache<string, Omit<ResolvedComponent, 'deleted'>>(MAX_VERSIONS);

  constructor(
    private readonly db: Db,
    private readonly files: ComponentFiles,
    /** The origins the registry's files are served from. */
    private readonly origins: () => string[],
  ) {}

  /** The `<name>@<version>` a URL of this registry names, or null for a URL of anywhere else. */
  referenceOf(url: string): RegistryReference | null {
    const reference = registryReference(url, undefined, this.origins());
    return reference === null || 'problem' in reference ? null : reference;
  }

  /** The component a URL names, or null: not a URL of this registry, or no such published version. */
  async resolve(url: string): Promise<ResolvedComponent | null> {
    const reference = this.referenceOf(url);
    return reference ? this.resolveReference(reference) : null;
  }

  /** The component `<name>@<version>` names (`latest` resolved), or null when it was never published. */
  async resolveReference({ name, version }: RegistryReference): Promise<ResolvedComponent | null> {
    let known;
    try {
      known = await this.files.versionsOf(name);
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') return null;
      throw error;
    }
    const exact = version === 'latest' ? known.latest : version;
    const row = known.versions.find((candidate) => candidate.version === exact);
    if (!row) return null;
    return { ...(await this.compiled(row.id)), deleted: row.deletedAt !== null };
  }

  private compiled(versionId: string): Promise<Omit<ResolvedComponent, 'deleted'>> {
    return this.byVersionId.get(versionId, () => this.load(versionId));
  }

  private async load(versionId: string): Promise<Omit<ResolvedComponent, 'deleted'>> {
    const row = await this.db.componentVersion.findUniqueOrThrow({ where: { id: versionId }, select: { version: true, manifest: true, component: { select: { name: true } } } });
    const manifest = JSON.parse(row.manifest) as Manifest;
    const validate = this.ajv.compile(propsSchema(manifest));
    return { name: row.component.name, version: row.version, manifest, propsProblems: (props, field) => problemsOf(validate, props, field) };
  }
}

function problemsOf(validate: ValidateFunction, props: unknown, field: string): FieldError[] {
  if (validate(props)) return [];
  return (validate.errors ?? []).slice(0, 20).map((error) => {
    const path = fieldOf(error);
    return { field: path === '(body)' ? field : `${field}.${path}`, message: messageOf(error) };
  });
}
