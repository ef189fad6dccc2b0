import { createHash, randomUUID } from 'node:crypto';
import semver from 'semver';
import type { Clock } from '../clock.js';
import { AppError, errors } from '../errors.js';
import type { Db } from '../store/database.js';
import { readComponentPackage, type ComponentPackage } from './componentPackage.js';
import { ComponentFiles, type ServedFile } from './componentFiles.js';
import { ComponentManifests } from './componentManifests.js';
import type { Manifest } from './manifest.js';
import { registryReference } from './registryPaths.js';
import { latestOf } from './versions.js';

/** Why a board cannot run a pinned component; `gone` when its version was deleted. */
export interface PinProblem {
  gone: boolean;
  message: string;
}

/** What components need from quotas: storage is measured and refused in one serialized step. */
export interface ComponentQuota {
  /** Runs `create` only if `bytes` more fit the organization's `storage_component` and `storage_org` (402 otherwise). */
  withRoomForComponent<T>(organizationId: string, bytes: number, create: (db: Db) => Promise<T>): Promise<T>;
}

export interface ComponentServiceDependencies {
  db: Db;
  clock: Clock;
  quotas: ComponentQuota;
  /** `COMPONENTS_URL` (default `APP_URL`): where component files are served from. */
  componentsUrl: () => string;
  /** `APP_URL`: component files are served there too. */
  appUrl: () => string;
}

/**
 * The component registry: publishing (every byte of a ZIP checked before anything is
 * stored), versions (immutable; `latest` is the highest release by semver), deprecation and
 * deletion (a deleted `name@version` is never published again), and the files served.
 */
export class ComponentService {
  readonly files: ComponentFiles;
  /** Manifests by the URLs boards name components with. */
  readonly manifests: ComponentManifests;

  constructor(private readonly deps: ComponentServiceDependencies) {
    this.files = new ComponentFiles(deps.db);
    this.manifests = new ComponentManifests(deps.db, this.files, () => this.origins());
  }

  async publish(organizationId: string, zip: Buffer) {
    const pkg = await readComponentPackage(zip);
    const { name, version } = pkg.manifest;
    const existing = await this.deps.db.component.findUnique({ where: { name }, include: { versions: { where: { version } } } });
    if (existing && existing.organizationId !== organizationId) throw errors.forbidden(`The component name "${name}" belongs to another organization`);
    const taken = existing?.versions[0];
    if (taken?.deletedAt) throw errors.conflict(`${name}@${version} was published and deleted; a version number is never used twice (publish a new version)`);
    if (taken) throw errors.conflict(`${name}@${version} is already published; published versions never change (publish a new version)`);
    const now = this.deps.clock.now();
    await this.storeWithRetry(organizationId, pkg, now);
    // What this instance knew of the name (its versions, or that it had none) is out of date.
    this.files.forget(name);
    return {
      status: 'published',
      component: { name, version, url: this.fileUrl(name, version, pkg.manifest.entry), assetsBaseUrl: this.fileUrl(name, version, '') },
      publishedAt: now.toISOString(),
    };
  }

  async list(organizationId: string) {
    const components = await this.deps.db.component.findMany({
      where: { organizationId },
      include: { versions: { where: { deletedAt: null }, orderBy: { publishedAt: 'asc' } } },
      orderBy: { name: 'asc' },
    });
    return {
      components: components.map((component) => {
        const versions = semver.rsort(component.versions.map((row) => row.version));
        const latest = latestOf(component.versions);
        const newest = component.versions.find((row) => row.version === latest);
        const manifest = newest ? (JSON.parse(newest.manifest) as Manifest) : null;
        return {
          name: component.name,
          versions,
          latest,
          author: manifest?.author ?? null,
          deprecated: component.versions.filter((row) => row.deprecated).map((row) => ({ version: row.version, message: row.deprecationMessage })),
        };
      }),
    };
  }

  async deprecate(organizationId: string, name: string, version: string, change: { deprecated: boolean; message?: string | null }) {
    const row = await this.ownedVersion(organizationId, name, version);
    const message = change.deprecated ? (change.message ?? null) : null;
    await this.deps.db.componentVersion.update({ where: { id: row.id }, data: { deprecated: change.deprecated, deprecationMessage: message } });
    this.files.forget(name);
    return { name, version, deprecated: change.deprecated, message };
  }

  /** Deletes a version's files; its `name@version` stays taken, and boards pinning it get an error object. */
  async remove(organizationId: string, name: string, version: string): Promise<void> {
    const row = await this.ownedVersion(organizationId, name, version);
    const { db } = this.deps;
    // Marked first: from here the version answers 410 and its bytes stop counting, whatever
    // happens to the cleanup below (no transaction: on SQLite one would hold the write lock).
    await db.componentVersion.update({ where: { id: row.id }, data: { deletedAt: this.deps.clock.now(), totalBytes: 0 } });
    this.files.forget(name);
    const files = await db.componentFile.findMany({ where: { versionId: row.id }, select: { blobHash: true } });
    await db.componentFile.deleteMany({ where: { versionId: row.id } });
    // A blob other versions still use stays: content-addressed files are shared.
    // A publish racing this may have just referenced one of these blobs: then it stays (or that
    // publish writes it again), and an orphan left here is only unreferenced bytes.
    await db.componentBlob.deleteMany({ where: { hash: { in: [...new Set(files.map((file) => file.blobHash))] }, files: { none: {} } } }).catch(() => undefined);
  }

  /**
   * Why a board may not pin what a `config.components[]` entry names, or null: a URL of this
   * registry must name a published, undeleted version (`latest`: while one is left); a URL of
   * anywhere else is not the registry's to judge. `gone`: the version existed and was deleted.
   */
  async pinProblem(url: string, version: string | undefined): Promise<PinProblem | null> {
    const reference = registryReference(url, version, this.origins());
    if (reference === null) return null;
    if ('problem' in reference) return { gone: false, message: reference.problem };
    const { name } = reference;
    const component = await this.deps.db.component.findUnique({ where: { name }, include: { versions: { select: { version: true, deletedAt: true, deprecated: true, deprecationMessage: true } } } });
    if (!component) return { gone: false, message: `names the component ${name}, which is not published` };
    if (reference.version === 'latest') return latestOf(component.versions) === null ? { gone: true, message: `names ${name}@latest, but every version of it was deleted` } : null;
    const row = component.versions.find((candidate) => candidate.version === reference.version);
    if (!row) return { gone: false, message: `names ${name}@${reference.version}, which is not published` };
    return row.deletedAt ? { gone: true, message: `names ${name}@${reference.version}, which was deleted` } : null;
  }

  /**
   * The version a board object's `componentUrl` names, as a board's page needs it: the
   * manifest with its defaults, or 404 (never published, or not a URL of this registry) and
   * 410 (deleted by its author: the page shows that in the component's place).
   */
  async describe(url: string) {
    const component = await this.manifests.resolve(url);
    if (!component) throw errors.notFound(`The component at ${url.slice(0, 200)}`);
    if (component.deleted) throw errors.gone(`${component.name}@${component.version} was deleted by its author`);
    return { name: component.name, version: component.version, manifest: component.manifest };
  }

  /** The origins this registry's files are served from. */
  private origins(): string[] {
    return [...new Set([this.deps.componentsUrl(), this.deps.appUrl()].map((url) => new URL(url).origin))];
  }

  /** A file as `GET /components/files/<name>@<version>/<path>` serves it; `version` may be `latest`. */
  file(name: string, version: string, path: string): Promise<ServedFile> {
    return this.files.get(name, version, path);
  }

  /**
   * Stores a package; a blob this publish found or wrote may be removed by a deletion racing it
   * (blobs are shared by content between versions and organizations), so a missing blob is
   * written again: a fresh attempt each time (on PostgreSQL the failed transaction is gone).
   */
  private async storeWithRetry(organizationId: string, pkg: ComponentPackage, now: Date): Promise<void> {
    const { name, version } = pkg.manifest;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.deps.quotas.withRoomForComponent(organizationId, pkg.totalBytes, (db) => store(db, organizationId, pkg, now));
      } catch (error) {
        if (prismaCode(error) === 'P2002') throw errors.conflict(`${name}@${version} is already published`);
        if (!BLOB_VANISHED.has(prismaCode(error) ?? '') || attempt === 5) throw error;
      }
    }
  }

  /** Refuses (404) a version the organization did not publish, or deleted: what a route checks before it reads a change. */
  async requireOwnedVersion(organizationId: string, name: string, version: string): Promise<void> {
    await this.ownedVersion(organizationId, name, version);
  }

  private async ownedVersion(organizationId: string, name: string, version: string) {
    const row = await this.deps.db.componentVersion.findFirst({ where: { version, component: { name, organizationId } } });
    if (!row || row.deletedAt) throw errors.notFound(`Component version ${name}@${version}`);
    return row;
  }

  private fileUrl(name: string, version: string, path: string): string {
    return `${this.deps.componentsUrl()}/components/files/${name}@${version}/${path}`;
  }
}

/**
 * Stores a checked package: the blobs first (content-addressed, so a blob written by a failed
 * publish is harmless and removed below), then the version and its files in one nested write,
 * which Prisma makes atomic: a version is either whole or absent.
 */
async function store(db: Db, organizationId: string, pkg: ComponentPackage, now: Date): Promise<void> {
  const { name, version, entry } = pkg.manifest;
  const component = await db.component.upsert({ where: { name }, create: { id: randomUUID(), organizationId, name, createdAt: now }, update: {} });
  if (component.organizationId !== organizationId) throw errors.forbidden(`The component name "${name}" belongs to another organization`);
  const files = pkg.files.map((file) => ({ ...file, hash: createHash('sha256').update(file.bytes).digest('hex') }));
  for (const file of files) {
    await db.componentBlob.upsert({ where: { hash: file.hash }, create: { hash: file.hash, content: file.bytes as Uint8Array<ArrayBuffer>, size: file.bytes.length }, update: {} });
  }
  try {
    await db.componentVersion.create({
      data: {
        id: randomUUID(),
        componentId: component.id,
        version,
        manifest: JSON.stringify(pkg.manifest),
        entry,
        totalBytes: pkg.totalBytes,
        publishedAt: now,
        files: { create: files.map((file) => ({ path: file.path, blobHash: file.hash, contentType: file.contentType, size: file.bytes.length })) },
      },
    });
  } catch (error) {
    await db.componentBlob.deleteMany({ where: { hash: { in: files.map((file) => file.hash) }, files: { none: {} } } }).catch(() => undefined);
    throw error;
  }
}

/**
 * How a blob removed under a publish shows: the file's foreign key fails (P2003), or the blob's
 * upsert found the row and then could not update it (P2025).
 */
const BLOB_VANISHED = new Set(['P2003', 'P2025']);

/** Prisma's error code (P2002 unique, P2003 foreign key, P2025 not found), or null for anything else. */
function prismaCode(error: unknown): string | null {
  if (error instanceof AppError || typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
}
