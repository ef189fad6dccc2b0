import type { Frame } from '../../../src/frames/frame.js';
import { isForbiddenWrite, zoneAt, type WriteTarget } from '../../../src/frames/writeRules.js';
import { zoneAccess, isActiveZone, type Viewer, type ZoneAccess } from '../../../src/frames/zonePermissions.js';
import type { FrameRecord } from '../../../src/realtime/protocol/records.js';

/** A frame as the API and the socket's `frame:*` messages carry it (the realtime protocol's record). */
export type { FrameRecord };

/** The document name of a zone's content (docs/frames-and-zones.md). */
export const zoneDocumentName = (boardId: string, frameId: string) => `${boardId}/zones/${frameId}`;

/**
 * The board's frames, kept from the API and the socket's frame events. The rules of where
 * content lives and who may write it are the server's own (src/frames), so the page never
 * offers an edit the server would undo.
 */
export class FrameSet {
  private readonly byId = new Map<string, Frame>();
  private readonly records = new Map<string, FrameRecord>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly viewer: Viewer) {}

  replaceAll(records: FrameRecord[]): void {
    this.byId.clear();
    this.records.clear();
    for (const record of records) this.put(record);
    this.changed();
  }

  upsert(record: FrameRecord): void {
    this.put(record);
    this.changed();
  }

  remove(frameId: string): void {
    this.byId.delete(frameId);
    this.records.delete(frameId);
    this.changed();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Frames in their order, the hidden ones only for the host (as the API lists them). */
  list(): FrameRecord[] {
    return [...this.records.values()].filter((record) => record.visibility !== 'archived').sort((a, b) => a.order - b.order || a.created_at.localeCompare(b.created_at));
  }

  get(frameId: string): FrameRecord | undefined {
    return this.records.get(frameId);
  }

  /** Zones whose content this viewer may read, with the access it has. */
  readableZones(): Array<{ frame: FrameRecord; access: ZoneAccess }> {
    const zones: Array<{ frame: FrameRecord; access: ZoneAccess }> = [];
    for (const frame of this.byId.values()) {
      if (!isActiveZone(frame)) continue;
      const access = zoneAccess(frame, this.viewer);
      if (access !== 'none') zones.push({ frame: this.records.get(frame.id)!, access });
    }
    return zones;
  }

  /** The zone whose area holds a point, if any: its content lives in the zone's document. */
  zoneAt(point: { x: number; y: number }): FrameRecord | null {
    const zone = zoneAt(point, [...this.byId.values()]);
    return zone ? this.records.get(zone.id)! : null;
  }

  /** Whether this viewer may move an object from `before` to `after` (null: create or delete). */
  mayWrite(before: { x: number; y: number } | null, after: { x: number; y: number } | null): boolean {
    const frames = [...this.byId.values()];
    const point = after ?? before;
    if (!point) return false;
    const zone = zoneAt(point, frames);
    if (zone && zoneAccess(zone, this.viewer) !== 'write') return false;
    const sourceZone = before ? zoneAt(before, frames) : null;
    if (sourceZone && zoneAccess(sourceZone, this.viewer) !== 'write') return false;
    const target: WriteTarget = zone ? { kind: 'zone', frame: zone } : { kind: 'board', zones: frames };
    // Within one document the server's own rule decides; crossing documents is a delete and a create.
    const sameDocument = (sourceZone?.id ?? null) === (zone?.id ?? null);
    return !isForbiddenWrite(this.viewer, target, sameDocument ? { before, after } : { before: null, after });
  }

  private put(record: FrameRecord): void {
    this.records.set(record.id, record);
    this.byId.set(record.id, frameOf(record));
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function frameOf(record: FrameRecord): Frame {
  return {
    id: record.id,
    boardId: '',
    name: record.name,
    order: record.order,
    bounds: { x: record.bounds_x, y: record.bounds_y, width: record.bounds_width, height: record.bounds_height },
    lockMode: record.lock_mode,
    backgroundColor: record.background_color,
    visibility: record.visibility,
    parentFrameId: record.parent_frame_id,
    assignedParticipantId: record.assigned_participant_id,
    assignedUserId: record.assigned_user_id,
    zoneVisibility: record.zone_visibility,
    zoneVersion: record.zone_version,
    createdAt: new Date(record.created_at),
    updatedAt: new Date(record.updated_at),
  };
}
