import { errors } from '../errors.js';
import type { Db } from '../store/database.js';
import { latestOf, type VersionRecord } from './versions.js';

/** A component file ready to serve. */
export interface ServedFile {
  bytes: Buffer;
  contentType: string;
  /** Strong validator: the SHA-256 of the content. */
  etag: string;
  /** The version served (`latest` resolved). */
  version: string;
  /** Asked for by exact version (cacheable for ever) rather than `latest`. */
  exact: boolean;
  /** Set when the version is deprecated: the author's message (possibly empty). */
  deprecation: string | null;
}

/** A component's versions as the registry knows them now. */
export interface ComponentVersions {
  versions: readonly KnownVersion[];
  latest: string | null;
}

export interface KnownVersion extends VersionRecord {
  id: string;
  entry: string;
}

interface FileRef {
  blobHash: string;
  contentType: string;
}

interface KnownComponent {
  /** False: the registry had no component of this name when asked (boards may name one before it is published). */
  published: boolean;
  versions: KnownVersion[];
  /** `latest` resolved once per read, not per request. */
  latest: string | null;
  /** A version's files, loaded on first use: published files never change. */
  files: Map<string, Promise<Map<string, FileRef>>>;
  readAt: number;
}

/** How long a component's versions are trusted from memory: a deletion on another instance shows within this. */
const VERSIONS_TTL_MS = 5_000;
/** Memory kept for hot file contents (blobs never change: no invalidation needed). */
const BLOB_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Serves component files from the database, so every instance serves every component. File
 * contents are cached by hash in a bounded LRU; a component's version list (and `latest`) for a
 * few seconds, each version's file list for as long as the version lives (it never changes).
 */
export class ComponentFiles {
  private readonly components = new Map<string, KnownComponent>();
  /** Reads in flight: when a component's entry expires under load, one query serves every request waiting for it. */
  private readonly loading = new Map<string, Promise<KnownComponent>>();
  private readonly blobs = new Map<string, Buffer>();
  private blobBytes = 0;

  constructor(private readonly db: Db) {}

  async get(name: string, requested: string, path: string): Promise<ServedFile> {
    const component = await this.component(name);
    const exact = requested !== 'latest';
    const versionName = exact ? requested : component.latest;
    const version = component.versions.find((candidate) => candidate.version === versionName);
    if (!version) throw errors.notFound(`Component version ${name}@${requested}`);
    if (version.deletedAt) throw errors.gone(`${name}@${version.version} was deleted by its author`);
    const filePath = path === '' ? version.entry : path.normalize('NFC');
    const file = (await this.filesOf(component, version.id)).get(filePath);
    if (!file) throw errors.notFound(`File ${filePath} of ${name}@${version.version}`);
    return {
      bytes: await this.blob(file.blobHash),
      contentType: file.contentType,
      etag: `"${file.blobHash}"`,
      version: version.version,
      exact,
      deprecation: version.deprecated ? (version.deprecationMessage ?? '') : null,
    };
  }

  /** Drops what this instance knows of a component's versions (after it changed here). */
  forget(name: string): void {
    this.components.delete(name);
  }

  /** A component's versions and `latest`, trusted from memory for a few seconds (404 when it was never published). */
  versionsOf(name: string): Promise<ComponentVersions> {
    return this.component(name);
  }

  /**
   * A component as known, 404 when it is not published. Its absence is trusted for as long as
   * its versions would be: every edit of an object naming a component not yet published asks,
   * and a publish here forgets it at once.
   */
  private async component(name: string): Promise<KnownComponent> {
    const component = await this.known(name);
    if (!component.published) throw errors.notFound(`Component ${name}`);
    return component;
  }

  private known(name: string): Promise<KnownComponent> {
    const known = this.components.get(name);
    if (known && Date.now() - known.readAt < VERSIONS_TTL_MS) return Promise.resolve(known);
    let pending = this.loading.get(name);
    if (!pending) {
      pending = this.load(name, known).finally(() => this.loading.delete(name));
      this.loading.set(name, pending);
    }
    return pending;
  }

  private async load(name: string, previous: KnownComponent | undefined): Promise<KnownComponent> {
    const row = await this.db.component.findUnique({
      where: { name },
      include: { versions: { select: { id: true, version: true, entry: true, deprecated: true, deprecationMessage: true, deletedAt: true } } },
    });
    const versions = row?.versions ?? [];
    // Files of versions still alive stay known; a deleted version's are dropped with it.
    const files = new Map([...(previous?.files ?? [])].filter(([id]) => versions.some((version) => version.id === id && !version.deletedAt)));
    const fresh = { published: row !== null, versions, latest: latestOf(versions), files, readAt: Date.now() };
    this.components.set(name, fresh);
    if (this.components.size > 1_000) this.components.delete(this.components.keys().next().value!);
    return fresh;
  }

  private filesOf(component: KnownComponent, versionId: string): Promise<Map<string, FileRef>> {
    let files = component.files.get(versionId);
    if (!files) {
      files = this.db.componentFile
        .findMany({ where: { versionId }, select: { path: true, blobHash: true, contentType: true } })
        .then((rows) => new Map(rows.map((row) => [row.path, { blobHash: row.blobHash, contentType: row.contentType }])));
      component.files.set(versionId, files);
      files.catch(() => component.files.delete(versionId));
    }
    return files;
  }

  private async blob(hash: string): Promise<Buffer> {
    const cached = this.blobs.get(hash);
    if (cached) {
      // Map order is the LRU order: a hit moves to the back.
      this.blobs.delete(hash);
      this.blobs.set(hash, cached);
      return cached;
    }
    const row = await this.db.componentBlob.findUnique({ where: { hash }, select: { content: true } });
    if (!row) throw errors.notFound('Component file');
    const bytes = Buffer.from(row.content);
    this.remember(hash, bytes);
    return bytes;
  }

  private remember(hash: string, bytes: Buffer): void {
    if (bytes.length > BLOB_CACHE_BYTES / 8) return;
    this.blobs.set(hash, bytes);
    this.blobBytes += bytes.length;
    for (const [oldest, content] of this.blobs) {
      if (this.blobBytes <= BLOB_CACHE_BYTES) break;
      this.blobs.delete(oldest);
      this.blobBytes -= content.length;
    }
  }
}
