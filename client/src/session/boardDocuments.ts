import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { IndexeddbPersistence, clearDocument } from 'y-indexeddb';
import * as Y from 'yjs';
import { closesZoneOnly } from './closeReasons.js';

/** One document the page holds: the board's or a zone's, kept on the device and synced over the socket. */
export interface DocumentHandle {
  name: string;
  doc: Y.Doc;
  objects: Y.Map<unknown>;
  provider: HocuspocusProvider;
  local: IndexeddbPersistence;
  /**
   * Resolves once the device copy is loaded, or after 3 s without it: y-indexeddb reports no
   * errors (a browser without IndexedDB, a private window), and the board must open anyway.
   */
  localReady: Promise<void>;
  readOnly: boolean;
}

const LOCAL_WAIT_MS = 3_000;

export interface DocumentEvents {
  /** A document's objects changed: the ids touched (all of them after a load). */
  objectsChanged(document: string, ids: string[]): void;
  /** A stateless server message arrived. */
  message(payload: string): void;
  /** The server closed one document for this socket (a zone that became hidden). */
  documentRefused(document: string): void;
  /** Sync status may have changed. */
  syncChanged(): void;
}

/** Origin of this page's own edits: the undo manager tracks only these. */
export const LOCAL_ORIGIN = 'local-edit';

const NAMES_KEY = (deviceKey: string) => `${deviceKey}:documents`;
/** Set while a document holds edits of this device the server has not confirmed (survives reloads). */
const UNSAVED_KEY = (deviceKey: string, name: string) => `${deviceKey}:unsaved:${name}`;

/**
 * The board's documents on one socket: the board's own and each zone this viewer may read.
 * Each is kept in IndexedDB under the device key (board and credential), so the board opens
 * without a network, and a zone the viewer loses is also removed from the device.
 */
export class BoardDocuments {
  readonly socket: HocuspocusProviderWebsocket;
  private readonly handles = new Map<string, DocumentHandle>();

  constructor(
    private readonly options: { socketUrl: string; token: string; deviceKey: string; events: DocumentEvents },
  ) {
    this.socket = new HocuspocusProviderWebsocket({
      url: options.socketUrl,
      // The provider's backoff: 1 s doubling to 30 s with jitter, so a restart is no reconnect storm.
      delay: 1000,
      factor: 2,
      maxDelay: 30_000,
      minDelay: 1000,
      jitter: true,
      maxAttempts: 0,
    });
  }

  get(name: string): DocumentHandle | undefined {
    return this.handles.get(name);
  }

  all(): DocumentHandle[] {
    return [...this.handles.values()];
  }

  /** Opens a document: its device copy first (shown at once), then the server's. */
  open(name: string, readOnly: boolean, withAwareness: boolean): DocumentHandle {
    const existing = this.handles.get(name);
    if (existing) {
      existing.readOnly = readOnly;
      return existing;
    }
    const doc = new Y.Doc();
    const objects = doc.getMap<unknown>('objects');
    const local = new IndexeddbPersistence(`${this.options.deviceKey}:${name}`, doc);
    this.remember(name);
    const events = this.options.events;
    const provider = new HocuspocusProvider({
      websocketProvider: this.socket,
      name,
      document: doc,
      token: this.options.token,
      ...(withAwareness ? {} : { awareness: null }),
      onStateless: ({ payload }) => events.message(payload),
      onSynced: () => events.syncChanged(),
      // The provider counts only updates sent while connected; edits made offline (even before a
      // reload) reach the server in the reconnect handshake, whose acknowledgement brings it to 0.
      onUnsyncedChanges: ({ number }) => {
        if (number === 0 && provider.isSynced) localStorage.removeItem(UNSAVED_KEY(this.options.deviceKey, name));
        events.syncChanged();
      },
      onAuthenticationFailed: () => events.documentRefused(name),
      onClose: ({ event }) => {
        if (closesZoneOnly(event.reason)) events.documentRefused(name);
      },
    });
    provider.attach();
    doc.on('afterTransaction', (transaction: Y.Transaction) => {
      if (transaction.origin === LOCAL_ORIGIN && transaction.changed.size > 0) localStorage.setItem(UNSAVED_KEY(this.options.deviceKey, name), '1');
    });
    objects.observeDeep((changes) => {
      const ids = new Set<string>();
      for (const change of changes) {
        if (change.target === objects) for (const key of change.keys.keys()) ids.add(key);
        else ids.add(String(change.path[0]));
      }
      events.objectsChanged(name, [...ids]);
    });
    const localReady = Promise.race([local.whenSynced.then(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, LOCAL_WAIT_MS))]);
    const handle: DocumentHandle = { name, doc, objects, provider, local, localReady, readOnly };
    this.handles.set(name, handle);
    return handle;
  }

  /** Closes a document; `forget` also removes its copy from this device. */
  async close(name: string, forget: boolean): Promise<void> {
    const handle = this.handles.get(name);
    if (!handle) return;
    this.handles.delete(name);
    handle.provider.destroy();
    await handle.local.destroy();
    const ids = [...handle.objects.keys()];
    handle.doc.destroy();
    this.options.events.objectsChanged(name, ids);
    if (forget) await this.forget(name);
  }

  /** Removes every document of this board and credential from the device (a deleted board, a revoked link). */
  async forgetAll(): Promise<void> {
    for (const name of [...this.handles.keys()]) await this.close(name, false);
    await forgetDeviceCopies(this.options.deviceKey);
  }

  /** Resolves once every edit so far is in IndexedDB (transactions on one store run in order). */
  async flushed(): Promise<void> {
    await Promise.all(
      this.all().map(async (handle) => {
        await handle.localReady;
        const db = handle.local.db;
        if (!db) return;
        await new Promise<void>((resolve, reject) => {
          const transaction = db.transaction(['updates'], 'readwrite');
          transaction.oncomplete = () => resolve();
          transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB write failed'));
        });
      }),
    );
  }

  /** Every document synced with the server, and none holding edits it has not confirmed. */
  allSaved(): boolean {
    return this.all().every((handle) => handle.provider.isSynced && handle.provider.unsyncedChanges === 0 && !localStorage.getItem(UNSAVED_KEY(this.options.deviceKey, handle.name)));
  }

  destroy(): void {
    for (const handle of this.handles.values()) handle.provider.destroy();
    this.socket.destroy();
  }

  private async forget(name: string): Promise<void> {
    await clearDocument(`${this.options.deviceKey}:${name}`);
    localStorage.removeItem(UNSAVED_KEY(this.options.deviceKey, name));
    const names = this.rememberedNames().filter((known) => known !== name);
    localStorage.setItem(NAMES_KEY(this.options.deviceKey), JSON.stringify(names));
  }

  private remember(name: string): void {
    const names = this.rememberedNames();
    if (!names.includes(name)) localStorage.setItem(NAMES_KEY(this.options.deviceKey), JSON.stringify([...names, name]));
  }

  private rememberedNames(): string[] {
    return rememberedNames(this.options.deviceKey);
  }
}

/** Deletes every document kept on the device under a key, without opening any. */
export async function forgetDeviceCopies(deviceKey: string): Promise<void> {
  for (const name of rememberedNames(deviceKey)) {
    await clearDocument(`${deviceKey}:${name}`);
    localStorage.removeItem(UNSAVED_KEY(deviceKey, name));
  }
  localStorage.removeItem(NAMES_KEY(deviceKey));
}

function rememberedNames(deviceKey: string): string[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(NAMES_KEY(deviceKey)) ?? '[]') as unknown;
    return Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === 'string') : [];
  } catch {
    return [];
  }
}
