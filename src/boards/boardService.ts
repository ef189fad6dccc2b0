import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { errors, type FieldError } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { Db } from '../store/database.js';
import type { DirectStatements } from '../store/directStatements.js';
import { nextTurn } from '../util/nextTurn.js';
import type { AccessTokens } from './accessTokens.js';
import { requireHost, type Caller } from './caller.js';
import { boardFromRow, configWithDefaults, DEFAULT_EXPIRES_IN_HOURS, detailsFromRow, LARGE_BOARD_COLUMNS, type Board, type BoardDetails } from './board.js';
import { copySettingsOf, everyObjectOf } from './boardCopy.js';
import { newObject, putObjects, type BoardObject } from './boardObjects.js';
import { outboundUrlProblems } from './outboundUrls.js';
import type { BoardObjectRules, DocumentAuthor, LiveDocuments } from './ports.js';
import type { AccessLinks } from './presenter.js';
import type { BoardConfigInput, BoardStatus, CreateBoardInput, UpdateBoardInput } from './schemas.js';
import type { ComponentPins } from './componentPins.js';

const HOUR_MS = 3_600_000;
/** Most boards one expiry sweep handles; the next sweep takes the rest. */
const EXPIRY_SWEEP_BATCH = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface BoardServiceDependencies {
  db: Db;
  /** Writes the large columns (`LARGE_BOARD_COLUMNS`) on the driver directly: see `storeDetails`. */
  statements: DirectStatements;
  clock: Clock;
  bus: EventBus;
  documents: LiveDocuments;
  tokens: AccessTokens;
  /** Base of access links (`APP_URL`). */
  appUrl: string;
  /** Signing secrets and URL rules of boards' own `webhook_url`. */
  webhooks: BoardWebhookKeys;
  /** The `boards` quota: active boards are created (or restored) only while the plan has room. */
  quotas: BoardQuota;
  /** The rules objects must pass before they are written (custom object types). */
  objectRules: BoardObjectRules;
  /** Registry components a board's `config.components[]` pins. */
  components: ComponentPins;
  /** The frames a duplicate copies. */
  frames: BoardFrames;
  /**
   * Told when a board's settings, lifecycle or existence change: what caches the board drops
   * it (sockets' grants, the outbox's webhook target).
   */
  changeListeners: Array<(boardId: string) => void>;
  logger: Logger;
}

/** What duplication needs from frames (frames/frameCopier.ts). */
export interface BoardFrames {
  /** Every frame of a board, archived ones included, oldest first: each may hold content in a document of its own. */
  frameIds(boardId: string): Promise<string[]>;
  /** Copies every frame of one board into another as a plain frame (no assignment), parent links pointing at the copies. */
  copyFrames(fromBoardId: string, toBoardId: string): Promise<void>;
}

/** What boards need from quotas. */
export interface BoardQuota {
  /** Runs `activate` in a transaction only if the organization may have one more active board. */
  withRoomForBoard<T>(organizationId: string, activate: (tx: Db) => Promise<T>): Promise<T>;
}

/** What boards need from the webhook side for their own `webhook_url`. */
export interface BoardWebhookKeys {
  /** A new signing secret, in clear (to show once) and sealed (to store). */
  newSecret(): { secret: string; sealed: string };
  /** Why a URL may not be used as a webhook target, or null. */
  urlProblem(url: string): string | null;
  /** A board was just created with this target (caches take it instead of reading it back). */
  boardCreated(boardId: string, target: BoardWebhookTarget): void;
}

/** What a board's own webhook deliveries are made from. */
export interface BoardWebhookTarget {
  webhookUrl: string | null;
  /** Sealed with the webhook secret box. */
  webhookSecret: string | null;
  externalData: Record<string, unknown> | null;
}

/** What a board lookup tolerates besides an active or archived board. */
interface Lookup {
  allowExpired?: boolean;
}

/** The rules of boards: lifecycle, ownership, expiry and objects. REST handlers only translate. */
export class BoardService {
  constructor(private readonly deps: BoardServiceDependencies) {}

  /** Host and guest links of a board; each carries the board's access token. */
  accessLinks(board: Board): AccessLinks {
    const link = (role: 'host' | 'guest') =>
      `${this.deps.appUrl}/boards/${board.id}?token=${this.deps.tokens.issue(board.id, board.tokenNonce, role)}`;
    return { host: link('host'), guest: link('guest') };
  }

  async create(caller: Caller, input: CreateBoardInput): Promise<Board> {
    await this.deps.objectRules.validateObjects(caller.organizationId, input.initial_objects ?? [], { role: caller.role, fieldOf: (index) => `initial_objects.${index}` });
    const now = this.deps.clock.now();
    const objects = (input.initial_objects ?? []).map((object) => newObject(object, now));
    const board = await this.insertBoard(caller, { ...input, config: configWithDefaults(input.config) });
    return objects.length > 0 ? this.fillOrRemove(caller, board, () => this.writeObjects(board, objects)) : board;
  }

  /** Boards of the organization; archived ones only when asked for by status. */
  async list(caller: Caller, status?: BoardStatus): Promise<Board[]> {
    await this.expireOverdue(caller.organizationId);
    const rows = await this.deps.db.board.findMany({
      where: { organizationId: caller.organizationId, status: status ?? { in: ['active', 'expired'] } },
      omit: LARGE_BOARD_COLUMNS,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
    return rows.map(boardFromRow);
  }

  async listByOwner(caller: Caller, ownerExternalId: string): Promise<Board[]> {
    await this.expireOverdue(caller.organizationId);
    const rows = await this.deps.db.board.findMany({
      where: { organizationId: caller.organizationId, ownerExternalId },
      omit: LARGE_BOARD_COLUMNS,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
    return rows.map(boardFromRow);
  }

  /** A board of the caller's organization: 404 if unknown, 403 if another's, 410 once expired. */
  async get(caller: Caller, id: string, lookup: Lookup = {}): Promise<Board> {
    const row = UUID.test(id) ? await this.deps.db.board.findUnique({ where: { id }, omit: LARGE_BOARD_COLUMNS }) : null;
    if (!row) throw errors.notFound('Board');
    if (row.organizationId !== caller.organizationId) throw errors.forbidden('This board belongs to another organization');
    if (caller.boardId !== null && caller.boardId !== row.id) throw errors.forbidden('The access token is for another board');
    let board = boardFromRow(row);
    if (board.lifecycle.status === 'active' && board.expiresAt <= this.deps.clock.now()) {
      await this.expire(board);
      board = { ...board, lifecycle: { status: 'expired' } };
    }
    if (board.lifecycle.status === 'expired' && !lookup.allowExpired) throw errors.gone('Board has expired');
    return board;
  }

  /** The free-form values the board keeps as given (`external_data`, the tutorial fields). */
  async details(board: Board): Promise<BoardDetails> {
    const [row] = await this.deps.statements.allLarge<{ external_data: string | null; tutorial: string | null }>(
      'SELECT external_data, tutorial FROM boards WHERE id = ?',
      [board.id],
    );
    if (!row) throw errors.notFound('Board');
    // Parsing megabytes takes tens of milliseconds, and so does answering them: requests that
    // arrived meanwhile are answered in between.
    await nextTurn();
    return detailsFromRow({ externalData: row.external_data, tutorial: row.tutorial });
  }

  /** The board's objects, read from its live document. */
  async objects(board: Board): Promise<BoardObject[]> {
    return this.deps.documents.readObjects(board.id);
  }

  async update(caller: Caller, id: string, input: UpdateBoardInput): Promise<Board> {
    const board = await this.get(caller, id);
    requireHost(caller, 'change the board');
    this.checkOutboundUrls(input);
    await this.checkPinnedComponents(input.config);
    const now = this.deps.clock.now();
    const issued = input.webhook_url ? this.webhookSecretFor(input.webhook_url, board) : null;
    const row = await this.deps.db.board.update({
      where: { id: board.id },
      omit: LARGE_BOARD_COLUMNS,
      data: {
        updatedAt: now,
        ...(issued ? { webhookSecret: issued.sealed } : {}),
        ...(input.webhook_url === null ? { webhookSecret: null } : {}),
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.expires_in_hours !== undefined ? { expiresAt: new Date(now.getTime() + input.expires_in_hours * HOUR_MS) } : {}),
        ...(input.webhook_url !== undefined ? { webhookUrl: input.webhook_url } : {}),
        ...(input.config !== undefined ? { config: JSON.stringify(configWithDefaults(input.config, board.config)) } : {}),
      },
    });
    this.changed(board.id);
    return { ...boardFromRow(row), ...(issued ? { issuedWebhookSecret: issued.secret } : {}) };
  }

  /** Deletes a board for good: its row, its documents, its tokens; connected clients are dropped. */
  async delete(caller: Caller, id: string): Promise<void> {
    const board = await this.get(caller, id, { allowExpired: true });
    requireHost(caller, 'delete the board');
    // Announced while the row still exists: the board's own webhook_url is read from it.
    await this.deps.bus.publish('board.deleted', {
      ...eventSubject(board),
      deleted_at: this.deps.clock.now().toISOString(),
    });
    await this.deps.db.board.deleteMany({ where: { id: board.id } });
    this.changed(board.id);
    await this.deps.documents.destroy(board.id);
  }

  /** Disconnects every client; the board stays active and new clients may join. */
  async endSession(caller: Caller, id: string): Promise<{ board: Board; endedAt: Date }> {
    const board = await this.get(caller, id);
    requireHost(caller, 'end the session');
    const endedAt = this.deps.clock.now();
    this.deps.documents.disconnectAll(board.id, 'session-ended');
    await this.deps.db.board.update({ where: { id: board.id }, data: { sessionEndedAt: endedAt } });
    this.changed(board.id);
    await this.deps.bus.publish('board.ended', { ...eventSubject(board), session_ended_at: endedAt.toISOString() });
    return { board, endedAt };
  }

  /**
   * A new active board with the source's config, webhook URL and fresh tokens, and everything
   * it holds: its frames, zones copied as plain frames (participants are not copied, so no
   * assignment is), and every object, those of zones included. The copy has no zone, so all
   * of its content lives in its own document, where every client shows it.
   */
  async duplicate(caller: Caller, id: string): Promise<Board> {
    const source = await this.get(caller, id);
    requireHost(caller, 'duplicate the board');
    const objects = await everyObjectOf(source, await this.deps.frames.frameIds(source.id), this.deps.documents);
    const copy = await this.insertBoard(caller, copySettingsOf(source, await this.details(source)));
    // Frames first: whoever reads the copy's frames (and caches them) finds them all.
    return this.fillOrRemove(caller, copy, async () => {
      await this.deps.frames.copyFrames(source.id, copy.id);
      if (objects.length > 0) await this.writeObjects(copy, objects);
    });
  }

  /** Archives an active board, or restores an archived one. */
  async toggleArchive(caller: Caller, id: string): Promise<{ board: Board; at: Date }> {
    const board = await this.get(caller, id);
    requireHost(caller, 'archive or restore the board');
    const at = this.deps.clock.now();
    const archiving = board.lifecycle.status === 'active';
    const move = (db: Db) =>
      db.board.updateMany({
        where: { id: board.id, status: board.lifecycle.status },
        data: archiving ? { status: 'archived', archivedAt: at, updatedAt: at } : { status: 'active', archivedAt: null, updatedAt: at },
      });
    // Restoring makes the board count against the `boards` quota again.
    const moved = archiving ? await move(this.deps.db) : await this.deps.quotas.withRoomForBoard(board.organizationId, move);
    if (moved.count === 0) throw errors.conflict('The board changed state concurrently; retry');
    this.changed(board.id);
    const subject = eventSubject(board);
    if (archiving) await this.deps.bus.publish('board.archived', { ...subject, archived_at: at.toISOString() });
    else await this.deps.bus.publish('board.unarchived', { ...subject, restored_at: at.toISOString() });
    // Answer with the row as moved, not through `get`: a board restored past its expiry is
    // restored (and reported so); it expires at the next sweep or read.
    return { board: boardFromRow(await this.deps.db.board.findUniqueOrThrow({ where: { id: board.id }, omit: LARGE_BOARD_COLUMNS })), at };
  }

  /**
   * Moves every active board whose time is up to `expired` and raises `board.expired`,
   * whether or not anybody reads it. Safe to run from several places at once: only the
   * caller whose update wins raises the event.
   */
  async expireOverdue(organizationId?: string): Promise<number> {
    const rows = await this.deps.db.board.findMany({
      where: { status: 'active', expiresAt: { lte: this.deps.clock.now() }, ...(organizationId ? { organizationId } : {}) },
      omit: LARGE_BOARD_COLUMNS,
      take: EXPIRY_SWEEP_BATCH,
    });
    let expired = 0;
    for (const row of rows) if (await this.expire(boardFromRow(row))) expired += 1;
    return expired;
  }

  private async expire(board: Board): Promise<boolean> {
    const now = this.deps.clock.now();
    const moved = await this.deps.db.board.updateMany({
      where: { id: board.id, status: 'active', expiresAt: { lte: now } },
      data: { status: 'expired', updatedAt: now },
    });
    if (moved.count === 0) return false;
    this.changed(board.id);
    this.deps.documents.disconnectAll(board.id, 'board-expired');
    await this.deps.bus.publish('board.expired', {
      ...eventSubject(board),
      expires_at: board.expiresAt.toISOString(),
      expired_at: now.toISOString(),
    });
    return true;
  }

  /** Tells every change listener that the board's row changed or went away. */
  private changed(boardId: string): void {
    for (const listener of this.deps.changeListeners) listener(boardId);
  }

  /** Inserts the row and announces the board, with no content yet. */
  private async insertBoard(caller: Caller, input: CreateBoardInput): Promise<Board> {
    const { clock } = this.deps;
    const now = clock.now();
    const id = randomUUID();
    const { is_sandbox, mock_external_data, data_provider } = input;
    const tutorial = { is_sandbox, mock_external_data, data_provider };
    const hasTutorial = Object.values(tutorial).some((value) => value !== undefined);
    const tokenNonce = randomBytes(16).toString('base64url');
    this.checkOutboundUrls(input);
    await this.checkPinnedComponents(input.config);
    const issued = input.webhook_url ? this.webhookSecretFor(input.webhook_url, null) : null;
    const data = {
      id,
      organizationId: caller.organizationId,
      title: input.title,
      externalId: input.external_id ?? null,
      ownerExternalId: input.owner_external_id ?? null,
      status: 'active',
      config: JSON.stringify(configWithDefaults(input.config)),
      webhookUrl: input.webhook_url ?? null,
      webhookSecret: issued?.sealed ?? null,
      tokenNonce,
      ...this.deps.tokens.lookupHashes(id, tokenNonce),
      createdAt: now,
      updatedAt: now,
      expiresAt: new Date(now.getTime() + (input.expires_in_hours ?? DEFAULT_EXPIRES_IN_HOURS) * HOUR_MS),
    };
    const row = await this.deps.quotas.withRoomForBoard(caller.organizationId, (tx) => tx.board.create({ data, omit: LARGE_BOARD_COLUMNS }));
    await this.storeDetails(caller, id, { externalData: input.external_data ?? null, tutorial: hasTutorial ? tutorial : null });
    this.deps.webhooks.boardCreated(id, { webhookUrl: data.webhookUrl, webhookSecret: data.webhookSecret, externalData: input.external_data ?? null });
    const created = boardFromRow(row);
    const links = this.accessLinks(created);
    await this.deps.bus.publish('board.created', {
      ...eventSubject(created),
      host_link: links.host,
      guest_link: links.guest,
      created_at: now.toISOString(),
    });
    return issued ? { ...created, issuedWebhookSecret: issued.secret } : created;
  }

  /**
   * Writes the large columns of a board just inserted, before anyone is told it exists; a board
   * whose values could not be stored is removed. Through Prisma, a parameter of megabytes costs
   * hundreds of milliseconds of CPU on the event loop (its query compiler copies and scans it);
   * a driver statement binds it as it is, on SQLite off the event loop's thread.
   */
  private async storeDetails(caller: Caller, id: string, details: BoardDetails): Promise<void> {
    if (details.externalData === null && details.tutorial === null) return;
    // Serializing megabytes takes tens of milliseconds: requests that arrived while the body
    // was checked are answered first.
    await nextTurn();
    const json = (value: object | null) => (value === null ? null : JSON.stringify(value));
    const values = [json(details.externalData), json(details.tutorial), id];
    try {
      await this.deps.statements.allLarge('UPDATE boards SET external_data = ?, tutorial = ? WHERE id = ? RETURNING id', values);
    } catch (error) {
      this.deps.logger.error({ err: error, board_id: id }, 'the external data of a new board could not be saved; removing the board');
      await this.delete(caller, id).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Runs `fill` on a board just inserted, then answers it as stored (filling changes its
   * counters); a board whose content could not be saved is removed rather than left half made.
   */
  private async fillOrRemove(caller: Caller, board: Board, fill: () => Promise<void>): Promise<Board> {
    try {
      await fill();
    } catch (error) {
      this.deps.logger.error({ err: error, board_id: board.id }, 'the content of a new board could not be saved; removing the board');
      await this.delete(caller, board.id).catch(() => undefined);
      throw error;
    }
    const stored = boardFromRow(await this.deps.db.board.findUniqueOrThrow({ where: { id: board.id }, omit: LARGE_BOARD_COLUMNS }));
    return board.issuedWebhookSecret ? { ...stored, issuedWebhookSecret: board.issuedWebhookSecret } : stored;
  }

  private writeObjects(board: Board, objects: BoardObject[]): Promise<void> {
    return this.deps.documents.write(board.id, documentAuthor(board), (doc) => putObjects(doc, objects));
  }

  /**
   * Refuses (400) a data provider or component URL that breaks the rules of webhook targets
   * (production: https, public hosts only); the server or a browser would fetch them.
   */
  private checkOutboundUrls(input: { config?: BoardConfigInput; data_provider?: Record<string, unknown> }): void {
    const problems = outboundUrlProblems(input, (url) => this.deps.webhooks.urlProblem(url));
    if (problems.length > 0) throw errors.badRequest(problems.map(({ field, message }) => `${field} ${message}`), problems);
  }

  /**
   * Refuses (400, naming the entry) a `config.components[]` entry that names a version of this
   * registry which is not published, or was deleted: a board never pins what cannot be served.
   */
  private async checkPinnedComponents(config: BoardConfigInput | undefined): Promise<void> {
    const problems: FieldError[] = [];
    for (const [index, component] of (config?.components ?? []).entries()) {
      const problem = component.url === undefined ? null : await this.deps.components.pinProblem(component.url, component.version);
      if (problem) problems.push({ field: `config.components.${index}.url`, message: problem.message });
    }
    if (problems.length > 0) throw errors.badRequest(problems.map(({ field, message }) => `${field} ${message}`), problems);
  }

  /**
   * A board's `config.components[]` as it can run now: an entry whose registry version was
   * deleted since (or is otherwise not served) carries an error body in the API's shape
   * (`statusCode` 410 or 404, `error`, `message`) instead of standing as a component.
   */
  async pinnedComponents(board: Board): Promise<Board['config']['components']> {
    return Promise.all(
      board.config.components.map(async (component) => {
        const problem = component.url === undefined ? null : await this.deps.components.pinProblem(component.url, component.version);
        if (!problem) return component;
        const status = problem.gone ? { statusCode: 410, error: 'Gone' } : { statusCode: 404, error: 'Not Found' };
        return { ...component, error: { ...status, message: `${component.url} ${problem.message}` } };
      }),
    );
  }

  /**
   * Checks a board's webhook URL and gives the board a signing secret if it has none
   * (its deliveries are signed like a subscription's; the secret is shown once).
   */
  private webhookSecretFor(url: string, board: Board | null): { secret: string; sealed: string } | null {
    const problem = this.deps.webhooks.urlProblem(url);
    if (problem) throw errors.badRequest([`webhook_url ${problem}`], [{ field: 'webhook_url', message: problem }]);
    return board?.hasWebhookSecret ? null : this.deps.webhooks.newSecret();
  }
}

function documentAuthor(board: Board): DocumentAuthor {
  return { boardId: board.id, organizationId: board.organizationId, userId: null };
}

function eventSubject(board: Board) {
  return { board_id: board.id, organization_id: board.organizationId, title: board.title, external_id: board.externalId };
}
