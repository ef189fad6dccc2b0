import { randomUUID } from 'node:crypto';
import type { Board } from '../boards/board.js';
import type { BoardService } from '../boards/boardService.js';
import type { BoardObject } from '../boards/boardObjects.js';
import type { ParticipantLink } from '../boards/participantLinks.js';
import { requireHost, type Caller } from '../boards/caller.js';
import type { ConnectedParticipant, LiveDocuments } from '../boards/ports.js';
import type { Clock } from '../clock.js';
import { AppError, ERROR_KINDS, errors } from '../errors.js';
import type { Db } from '../store/database.js';
import { MAX_COORDINATE } from '../boards/schemas.js';
import { KeyedQueue } from '../util/keyedQueue.js';
import { zoneDocumentName } from '../store/documentNames.js';
import { FRAME_DEFAULTS, frameFromRow, type Bounds, type Frame } from './frame.js';
import type { FrameDirectory } from './frameDirectory.js';
import type { AssignInput, BulkAssignInput, CreateFrameInput, FrameFieldsInput } from './schemas.js';
import { isActiveZone, isZone, overlaps, zoneAccess } from './zonePermissions.js';

/** What the realtime side does when a frame changes: tell sockets, re-decide access, move content. */
export interface FrameChangeListener {
  frameChanged(board: Board, before: Frame | null, after: Frame): Promise<void>;
}

export interface FrameServiceDependencies {
  db: Db;
  directory: FrameDirectory;
  clock: Clock;
  boards: BoardService;
  documents: LiveDocuments;
  listener: FrameChangeListener;
  /** Personal links, handed out by bulk assignment with `issue_links`. */
  links: {
    ensure(board: Board, userIds: readonly string[]): Promise<Map<string, ParticipantLink>>;
    /** 409 unless links for `userIds` fit the board's cap (checked before anything is assigned). */
    assertRoom(boardId: string, userIds: readonly string[]): Promise<void>;
  };
}

/** A personal link as bulk assignment answers it. */
export interface IssuedLink {
  user_id: string;
  token: string;
  link: string;
  expires_at: string;
}

/** A successful entry of a bulk assignment. */
export interface AssignedResult {
  frame_id: string;
  success: true;
  zone_version: number;
  participant_link?: IssuedLink;
}

/** The outcome of one entry of a bulk assignment. */
export type BulkAssignResult =
  | AssignedResult
  | { frame_id: string; success: false; zone_version: number | null; error: { statusCode: number; message: string } };

/**
 * Frames and student zones: every rule of the "Frames and zones" endpoints lives here,
 * and the socket side reacts to the changes through `FrameChangeListener`.
 */
export class FrameService {
  /** Zone changes of one board run one at a time, so overlap checks cannot race. */
  private readonly boardQueue = new KeyedQueue<string>();

  constructor(private readonly deps: FrameServiceDependencies) {}

  async create(caller: Caller, boardId: string, input: CreateFrameInput): Promise<Frame> {
    const board = await this.deps.boards.get(caller, boardId);
    const userId = input.assigned_user_id ?? null;
    const participantId = userId ? null : (input.assigned_participant_id ?? null);
    const zone = userId !== null || participantId !== null;
    if (input.zone_visibility !== undefined && !zone) {
      // A validation error like the schema's: `message` lists `<field> <problem>`, `details` the same.
      const missing = { field: 'assigned_participant_id', message: 'is required for a zone (or assigned_user_id)' };
      throw errors.badRequest([`${missing.field} ${missing.message}`], [missing]);
    }
    if (zone) requireHost(caller, 'create zones');
    // A lock steers every participant's viewport: only the host sets one, as with PATCH and `frame:lock`.
    if ((input.lock_mode ?? FRAME_DEFAULTS.lockMode) !== FRAME_DEFAULTS.lockMode) requireHost(caller, 'lock a frame');
    return this.boardQueue.run(board.id, async () => {
      if (input.parent_frame_id) await this.frameOf(board.id, input.parent_frame_id, 'Parent frame');
      if (participantId) await this.requireParticipant(board.id, participantId);
      const bounds = boundsOf(input, { x: FRAME_DEFAULTS.x, y: FRAME_DEFAULTS.y, width: FRAME_DEFAULTS.width, height: FRAME_DEFAULTS.height });
      if (zone) await this.requireNoOverlap(board.id, bounds, null);
      const now = this.deps.clock.now();
      const row = await this.deps.db.frame.create({
        data: {
          id: randomUUID(),
          boardId: board.id,
          name: input.name,
          order: input.order ?? FRAME_DEFAULTS.order,
          boundsX: bounds.x,
          boundsY: bounds.y,
          boundsWidth: bounds.width,
          boundsHeight: bounds.height,
          lockMode: input.lock_mode ?? FRAME_DEFAULTS.lockMode,
          backgroundColor: input.background_color ?? null,
          visibility: input.visibility ?? FRAME_DEFAULTS.visibility,
          parentFrameId: input.parent_frame_id ?? null,
          assignedParticipantId: participantId,
          assignedUserId: userId,
          zoneVisibility: input.zone_visibility ?? FRAME_DEFAULTS.zoneVisibility,
          zoneVersion: 1,
          createdAt: now,
          updatedAt: now,
        },
      });
      const frame = frameFromRow(row);
      await this.deps.listener.frameChanged(board, null, frame);
      return frame;
    });
  }

  /** Frames in presentation order, as far as the caller may see them. */
  async list(caller: Caller, boardId: string, filter: { includeArchived: boolean; assigned?: boolean }): Promise<Frame[]> {
    const board = await this.deps.boards.get(caller, boardId);
    const rows = await this.deps.db.frame.findMany({
      where: { boardId: board.id, ...(filter.includeArchived ? {} : { visibility: { not: 'archived' } }) },
      orderBy: [{ order: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows
      .map(frameFromRow)
      .filter((frame) => filter.assigned === undefined || isZone(frame) === filter.assigned)
      .filter((frame) => zoneAccess(frame, caller) !== 'none');
  }

  async get(caller: Caller, boardId: string, frameId: string): Promise<Frame> {
    const board = await this.deps.boards.get(caller, boardId);
    return this.visibleFrame(caller, board.id, frameId);
  }

  /**
   * The board's objects as the caller may see them (`state.objects`): the board document's,
   * plus those of every zone document the caller may read, each marked with its `zone_id`.
   */
  async objectsVisibleTo(caller: Caller, board: Board): Promise<Array<BoardObject & { zone_id?: string }>> {
    const objects: Array<BoardObject & { zone_id?: string }> = await this.deps.documents.readObjects(board.id);
    for (const frame of await this.deps.directory.framesOfBoard(board.id)) {
      if (zoneAccess(frame, caller) === 'none') continue;
      const zoneObjects = await this.deps.documents.readObjects(zoneDocumentName(board.id, frame.id));
      objects.push(...zoneObjects.map((object) => ({ ...object, zone_id: frame.id })));
    }
    return objects;
  }

  /**
   * How many objects the board holds as the caller may count them (`objects_count`): its own
   * document's, plus those of every frame document the caller may read. A guest never learns
   * how much a zone hidden from it holds; the host (and the API key) count everything.
   */
  async objectsCountVisibleTo(caller: Caller, board: Board): Promise<number> {
    const rows = await this.deps.db.frame.findMany({ where: { boardId: board.id, objectsCount: { gt: 0 } } });
    return rows.reduce((count, row) => count + (zoneAccess(frameFromRow(row), caller) === 'none' ? 0 : row.objectsCount), board.objectsCount);
  }

  /**
   * How many objects each board holds in all its documents, its frames' included: the
   * organization's listings, which only the API key reads.
   */
  async objectsCounts(boards: readonly Board[]): Promise<Map<string, number>> {
    const inFrames = await this.deps.db.frame.groupBy({
      by: ['boardId'],
      where: { boardId: { in: boards.map((board) => board.id) }, objectsCount: { gt: 0 } },
      _sum: { objectsCount: true },
    });
    const counts = new Map(boards.map((board) => [board.id, board.objectsCount]));
    for (const row of inFrames) counts.set(row.boardId, (counts.get(row.boardId) ?? 0) + (row._sum.objectsCount ?? 0));
    return counts;
  }

  /**
   * The participants connected to the board as the caller may see them: a location inside a
   * frame the caller may not see is left out, as the frame itself is (a location names it).
   */
  async participantsVisibleTo(caller: Caller, board: Board): Promise<ConnectedParticipant[]> {
    const participants = await this.deps.documents.participants(board.id);
    if (!participants.some((participant) => participant.location?.frameId)) return participants;
    const frames = new Map((await this.deps.directory.cachedFramesOfBoard(board.id)).map((frame) => [frame.id, frame]));
    return participants.map(({ location, ...participant }) => {
      const frame = location?.frameId ? frames.get(location.frameId) : undefined;
      const hidden = frame !== undefined && zoneAccess(frame, caller) === 'none';
      return location && !hidden ? { ...participant, location } : participant;
    });
  }

  async update(caller: Caller, boardId: string, frameId: string, input: FrameFieldsInput): Promise<Frame> {
    const board = await this.deps.boards.get(caller, boardId);
    return this.boardQueue.run(board.id, async () => {
      const before = await this.visibleFrame(caller, board.id, frameId);
      if (isZone(before)) requireHost(caller, 'change a zone');
      // The lock mode steers every participant's viewport, like the host-only `frame:lock` command.
      if (input.lock_mode !== undefined) requireHost(caller, "change a frame's lock mode");
      const bounds = boundsOf(input, before.bounds);
      const moved = JSON.stringify(bounds) !== JSON.stringify(before.bounds);
      // An archived zone does not count for overlaps, so restoring one must find its area free again.
      const restored = before.visibility === 'archived' && input.visibility !== undefined && input.visibility !== 'archived';
      if ((moved || restored) && isActiveZone({ ...before, visibility: input.visibility ?? before.visibility })) {
        await this.requireNoOverlap(board.id, bounds, before.id);
      }
      return this.save(board, before, {
        name: input.name,
        order: input.order,
        boundsX: bounds.x,
        boundsY: bounds.y,
        boundsWidth: bounds.width,
        boundsHeight: bounds.height,
        lockMode: input.lock_mode,
        backgroundColor: input.background_color,
        visibility: input.visibility,
        zoneVisibility: input.zone_visibility,
      });
    });
  }

  /** DELETE: archives the frame; a zone loses its assignment, its objects are kept. */
  async archive(caller: Caller, boardId: string, frameId: string): Promise<Frame> {
    const board = await this.deps.boards.get(caller, boardId);
    return this.boardQueue.run(board.id, async () => {
      const before = await this.visibleFrame(caller, board.id, frameId);
      if (isZone(before)) requireHost(caller, 'delete a zone');
      return this.save(board, before, { visibility: 'archived', assignedParticipantId: null, assignedUserId: null });
    });
  }

  /**
   * A copy of the frame's geometry, lock mode and color, offset; never its objects or assignment.
   * A guest's copy is unlocked: only the host locks frames, and a clone names no lock of its own.
   */
  async clone(caller: Caller, boardId: string, frameId: string, input: { offsetX?: number; offsetY?: number; name?: string }): Promise<Frame> {
    const source = await this.get(caller, boardId, frameId);
    const x = source.bounds.x + (input.offsetX ?? 0);
    const y = source.bounds.y + (input.offsetY ?? 0);
    // The copy must stay where a frame may be created (the schema's bound on coordinates).
    const outside = [['offsetX', x] as const, ['offsetY', y] as const].filter(([, value]) => Math.abs(value) > MAX_COORDINATE);
    if (outside.length > 0) {
      const details = outside.map(([field]) => ({ field, message: `would place the copy beyond ±${MAX_COORDINATE} px` }));
      throw errors.badRequest(details.map((d) => `${d.field} ${d.message}`), details);
    }
    return this.create(caller, boardId, {
      name: input.name ?? `${source.name} (Copy)`.slice(0, 255),
      order: source.order,
      bounds_x: x,
      bounds_y: y,
      bounds_width: source.bounds.width,
      bounds_height: source.bounds.height,
      lock_mode: caller.role === 'host' ? source.lockMode : FRAME_DEFAULTS.lockMode,
      background_color: source.backgroundColor,
      parent_frame_id: source.id,
    });
  }

  async assign(caller: Caller, boardId: string, frameId: string, input: AssignInput): Promise<Frame> {
    const board = await this.deps.boards.get(caller, boardId);
    requireHost(caller, 'assign zones');
    return this.boardQueue.run(board.id, () => this.assignLocked(board, frameId, input));
  }

  async unassign(caller: Caller, boardId: string, frameId: string): Promise<Frame> {
    const board = await this.deps.boards.get(caller, boardId);
    requireHost(caller, 'unassign zones');
    return this.boardQueue.run(board.id, async () => {
      const before = await this.frameOf(board.id, frameId);
      return this.save(board, before, { assignedParticipantId: null, assignedUserId: null });
    });
  }

  /**
   * Assigns many zones; each entry succeeds or fails on its own. With `issue_links`, each
   * entry assigned to a `user_id` carries that user's personal link (created where missing).
   */
  async bulkAssign(caller: Caller, boardId: string, input: BulkAssignInput): Promise<{ assigned: number; failed: number; results: BulkAssignResult[] }> {
    const board = await this.deps.boards.get(caller, boardId);
    requireHost(caller, 'assign zones');
    if (input.issue_links) await this.deps.links.assertRoom(board.id, input.assignments.flatMap((entry) => (entry.user_id ? [entry.user_id] : [])));
    const results: BulkAssignResult[] = [];
    const toUsers: Array<{ result: AssignedResult; userId: string }> = [];
    await this.boardQueue.run(board.id, async () => {
      for (const entry of input.assignments) {
        try {
          const frame = await this.assignLocked(board, entry.frame_id, entry);
          const result: AssignedResult = { frame_id: entry.frame_id, success: true, zone_version: frame.zoneVersion };
          results.push(result);
          if (frame.assignedUserId) toUsers.push({ result, userId: frame.assignedUserId });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          const current = await this.deps.db.frame.findFirst({ where: { id: entry.frame_id, boardId: board.id } });
          results.push({
            frame_id: entry.frame_id,
            success: false,
            zone_version: current?.zoneVersion ?? null,
            error: { statusCode: ERROR_KINDS[error.kind].statusCode, message: error.message },
          });
        }
      }
    });
    if (input.issue_links) await this.attachLinks(board, toUsers);
    const assigned = results.filter((result) => result.success).length;
    return { assigned, failed: results.length - assigned, results };
  }

  private async attachLinks(board: Board, toUsers: Array<{ result: AssignedResult; userId: string }>): Promise<void> {
    const links = await this.deps.links.ensure(board, toUsers.map(({ userId }) => userId));
    for (const { result, userId } of toUsers) {
      const link = links.get(userId)!;
      result.participant_link = { user_id: userId, token: link.token, link: link.link, expires_at: link.expiresAt.toISOString() };
    }
  }

  private async assignLocked(board: Board, frameId: string, input: AssignInput): Promise<Frame> {
    const before = await this.frameOf(board.id, frameId);
    if (before.visibility === 'archived') throw errors.badRequest('An archived frame cannot be assigned; restore it first');
    const userId = input.user_id ?? null;
    const participantId = userId ? null : (input.participant_id ?? null);
    if (participantId) await this.requireParticipant(board.id, participantId);
    await this.requireNoOverlap(board.id, before.bounds, before.id);
    return this.save(board, before, { assignedUserId: userId, assignedParticipantId: participantId });
  }

  /** Writes a change, bumps `zone_version`, and lets the realtime side react. */
  private async save(board: Board, before: Frame, data: Record<string, unknown>): Promise<Frame> {
    const row = await this.deps.db.frame.update({
      where: { id: before.id },
      data: { ...stripUndefined(data), zoneVersion: { increment: 1 }, updatedAt: this.deps.clock.now() },
    });
    const after = frameFromRow(row);
    await this.deps.listener.frameChanged(board, before, after);
    return after;
  }

  private async visibleFrame(caller: Caller, boardId: string, frameId: string): Promise<Frame> {
    const frame = await this.frameOf(boardId, frameId);
    if (zoneAccess(frame, caller) === 'none') throw errors.notFound('Frame');
    return frame;
  }

  private async frameOf(boardId: string, frameId: string, what = 'Frame'): Promise<Frame> {
    const frame = await this.deps.directory.frame(boardId, frameId);
    if (!frame) throw errors.notFound(what);
    return frame;
  }

  private async requireParticipant(boardId: string, participantId: string): Promise<void> {
    const known = await this.deps.db.boardParticipant.findUnique({ where: { boardId_userId: { boardId, userId: participantId } } });
    if (!known) throw errors.notFound('Participant');
  }

  private async requireNoOverlap(boardId: string, bounds: Bounds, exceptId: string | null): Promise<void> {
    const zones = (await this.deps.directory.framesOfBoard(boardId)).filter((frame) => frame.id !== exceptId && isActiveZone(frame));
    const clash = zones.find((zone) => overlaps(zone.bounds, bounds));
    if (clash) throw errors.conflict(`The zone would overlap zone "${clash.name}" (${clash.id})`);
  }
}

function boundsOf(input: FrameFieldsInput, base: Bounds): Bounds {
  return {
    x: input.bounds_x ?? base.x,
    y: input.bounds_y ?? base.y,
    width: input.bounds_width ?? base.width,
    height: input.bounds_height ?? base.height,
  };
}

function stripUndefined(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
}

