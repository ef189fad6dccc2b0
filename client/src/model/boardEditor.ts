import * as Y from 'yjs';
import { LOCAL_ORIGIN, type BoardDocuments, type DocumentHandle } from '../session/boardDocuments.js';
import { objectMap, readObject, type BoardObject } from './boardObject.js';
import { zoneDocumentName, type FrameSet } from './frames.js';

/** Why an edit was not made: the page says so instead of letting the server undo it. */
export type EditRefusal = 'read-only' | 'not-yours' | 'locked' | 'missing';

export type EditResult = { ok: true } | { ok: false; refusal: EditRefusal };

const OK: EditResult = { ok: true };

/**
 * Every edit the page makes, in one place: it finds the document an object lives in (a
 * zone's when it lies in one), asks the server's own zone rules before writing, and records
 * the edit for undo. Undo and redo replay this page's edits only, across documents, newest first.
 */
export class BoardEditor {
  private readonly managers = new Map<string, Y.UndoManager>();
  private readonly undoOrder: string[] = [];
  private redoOrder: string[] = [];
  private replaying = false;

  constructor(
    private readonly boardId: string,
    private readonly documents: BoardDocuments,
    private readonly frames: FrameSet,
    private readonly author: () => string | null,
    private readonly isHost: boolean,
  ) {}

  /** Starts tracking a document's local edits (called when it opens). */
  track(handle: DocumentHandle): void {
    if (this.managers.has(handle.name)) return;
    const manager = new Y.UndoManager(handle.objects, { trackedOrigins: new Set([LOCAL_ORIGIN]), captureTimeout: 400 });
    manager.on('stack-item-added', (event: { type: 'undo' | 'redo' }) => {
      if (this.replaying || event.type !== 'undo') return;
      this.undoOrder.push(handle.name);
      this.redoOrder = [];
    });
    this.managers.set(handle.name, manager);
  }

  untrack(name: string): void {
    this.managers.get(name)?.destroy();
    this.managers.delete(name);
  }

  find(id: string): BoardObject | null {
    for (const handle of this.documents.all()) {
      const object = readObject(id, handle.objects.get(id), handle.name);
      if (object) return object;
    }
    return null;
  }

  /** Every object of every document this page holds. */
  all(): BoardObject[] {
    return this.documents.all().flatMap((handle) =>
      [...handle.objects.keys()].map((id) => readObject(id, handle.objects.get(id), handle.name)).filter((object) => object !== null),
    );
  }

  create(object: Omit<BoardObject, 'document' | 'createdBy' | 'locked'>): EditResult {
    if (!this.frames.mayWrite(null, object.position)) return { ok: false, refusal: 'not-yours' };
    const handle = this.documentAt(object.position);
    if (!handle) return { ok: false, refusal: 'missing' };
    if (handle.readOnly) return { ok: false, refusal: 'read-only' };
    handle.doc.transact(() => handle.objects.set(object.id, objectMap({ ...object, createdBy: this.author() }, new Date())), LOCAL_ORIGIN);
    return OK;
  }

  /** Changes fields of an object; a move across a zone's edge carries it to the other document. */
  update(id: string, changes: Partial<Pick<BoardObject, 'data' | 'position' | 'width' | 'height'>>): EditResult {
    const current = this.find(id);
    if (!current) return { ok: false, refusal: 'missing' };
    if (current.locked && !this.isHost) return { ok: false, refusal: 'locked' };
    const source = this.documents.get(current.document)!;
    const after = changes.position ?? current.position;
    if (source.readOnly || !this.frames.mayWrite(current.position, after)) return { ok: false, refusal: 'not-yours' };
    const target = this.documentAt(after);
    if (!target) return { ok: false, refusal: 'missing' };
    if (target.readOnly) return { ok: false, refusal: 'read-only' };
    if (target === source) {
      source.doc.transact(() => {
        const map = source.objects.get(id) as Y.Map<unknown>;
        for (const [field, value] of Object.entries(changes)) map.set(field, value);
      }, LOCAL_ORIGIN);
      return OK;
    }
    // Carried whole, its lock included (only a host moves a locked object).
    const { locked, ...moved } = { ...current, ...changes };
    source.doc.transact(() => source.objects.delete(id), LOCAL_ORIGIN);
    target.doc.transact(() => {
      const map = objectMap(moved, new Date());
      if (locked) map.set('locked', true);
      target.objects.set(id, map);
    }, LOCAL_ORIGIN);
    return OK;
  }

  remove(id: string): EditResult {
    const current = this.find(id);
    if (!current) return { ok: false, refusal: 'missing' };
    if (current.locked && !this.isHost) return { ok: false, refusal: 'locked' };
    const handle = this.documents.get(current.document)!;
    if (handle.readOnly || !this.frames.mayWrite(current.position, null)) return { ok: false, refusal: 'not-yours' };
    handle.doc.transact(() => handle.objects.delete(id), LOCAL_ORIGIN);
    return OK;
  }

  undo(): void {
    this.replay(this.undoOrder, (manager) => manager.undo(), this.redoOrder);
  }

  redo(): void {
    this.replay(this.redoOrder, (manager) => manager.redo(), this.undoOrder);
  }

  private replay(from: string[], step: (manager: Y.UndoManager) => unknown, to: string[]): void {
    while (from.length > 0) {
      const name = from.pop()!;
      const manager = this.managers.get(name);
      if (!manager) continue;
      this.replaying = true;
      try {
        if (step(manager) === null) continue;
      } finally {
        this.replaying = false;
      }
      to.push(name);
      return;
    }
  }

  /** The document content at a point belongs in (a zone's own, inside its bounds), when this page holds it. */
  private documentAt(point: { x: number; y: number }): DocumentHandle | undefined {
    const zone = this.frames.zoneAt(point);
    return this.documents.get(zone ? zoneDocumentName(this.boardId, zone.id) : this.boardId);
  }
}
