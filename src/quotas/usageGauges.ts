import type { Db } from '../store/database.js';
import type { DirectStatements } from '../store/directStatements.js';
import { periodKeyOf } from './periods.js';
import { periodOf, QUOTA_TYPES, type GaugeQuota, type PeriodicQuota, type QuotaType } from './quotaTypes.js';

/** The counters of the current periods that `GET /quota` reports, one column each. */
const PERIOD_COUNTERS = QUOTA_TYPES.filter((type): type is PeriodicQuota => periodOf(type) !== 'none');

/** `measureAll`'s statement: one column per quota, named after its type (see its comment). */
const REPORT_SQL = `SELECT
  (SELECT COUNT(*) FROM boards WHERE organization_id = ? AND status = 'active')
    - (SELECT COUNT(*) FROM boards WHERE status = 'active' AND expires_at <= ? AND organization_id = ?) AS boards,
  (SELECT COUNT(*) FROM object_types WHERE organization_id = ?) AS object_types,
  (SELECT CAST(SUM(v.total_bytes) AS BIGINT) FROM component_versions v JOIN components c ON c.id = v.component_id
    WHERE c.organization_id = ? AND v.deleted_at IS NULL) AS storage_component,
  storage.total AS board_bytes,
  storage.largest AS storage_board,
  ${PERIOD_COUNTERS.map((type) => `(SELECT amount FROM quota_usage WHERE organization_id = ? AND quota_type = '${type}' AND period_start = ?) AS ${type}`).join(',\n  ')}
FROM (
  SELECT CAST(SUM(bytes) AS BIGINT) AS total, CAST(MAX(bytes) AS BIGINT) AS largest FROM board_storage WHERE organization_id = ?
) storage`;

/** Who is connected right now, through any instance (the realtime seat ledger). */
export interface OnlineParticipants {
  /** How many people are connected to a board. */
  count(boardId: string): Promise<number>;
  /** The boards with anyone connected. */
  boards(): Promise<string[]>;
}

/**
 * Measures the quotas that are a state rather than a count per period: active boards, the
 * busiest board's participants, registered object types, and storage (bytes of the boards'
 * documents: snapshots plus update log, zone documents included; and of published components).
 */
export class UsageGauges {
  constructor(
    private readonly db: Db,
    private readonly statements: DirectStatements,
    private readonly onlineParticipants: OnlineParticipants,
  ) {}

  /**
   * Active boards: those that count against the `boards` quota (archived and expired ones do
   * not). Counted as `measureAll` counts them, from the indexes: Prisma's `count` read every
   * board row of the organization, so each `POST /boards` grew dearer with the boards before it.
   */
  async activeBoards(db: Db, organizationId: string, now: Date): Promise<number> {
    const [row] = await db.$queryRaw<Array<{ boards: bigint | number }>>`
      SELECT (SELECT COUNT(*) FROM boards WHERE organization_id = ${organizationId} AND status = 'active')
        - (SELECT COUNT(*) FROM boards WHERE status = 'active' AND expires_at <= ${now} AND organization_id = ${organizationId}) AS boards`;
    return Number(row?.boards ?? 0);
  }

  objectTypes(db: Db, organizationId: string): Promise<number> {
    return db.objectType.count({ where: { organizationId } });
  }

  /**
   * Every quota's `current` for `GET /quota`: the gauges as `measure` measures them and the
   * counters of the current periods as `UsageStore.read` reads them, in one SQL statement
   * (one snapshot of the database). Asked as six Prisma queries, the report cost more CPU in
   * Prisma than in the database, and Prisma's count of active boards (`COUNT(*)` over a
   * `LIMIT`ed subquery reading every board row) was the costliest statement of all.
   *
   * Active boards are counted as `status = 'active'` (an index-only count on
   * (organization_id, status)) less those among them whose `expires_at` has passed but that
   * the sweep has not marked yet (a range of the (status, expires_at) index, a handful at
   * most): exactly `activeBoards`' `status = 'active' AND expires_at > now`, because
   * `expires_at` is never null.
   */
  async measureAll(organizationId: string, now: Date): Promise<Map<QuotaType, number>> {
    const periodCounters = PERIOD_COUNTERS.flatMap((type) => [organizationId, periodKeyOf(type, now)]);
    const [row] = await this.statements.all<Record<string, bigint | number | string | null>>(REPORT_SQL, [
      organizationId, now, organizationId, organizationId, organizationId, ...periodCounters, organizationId,
    ]);
    const value = (column: string) => Number(row?.[column] ?? 0);
    const measured = new Map<QuotaType, number>();
    for (const type of QUOTA_TYPES) {
      if (type === 'participants' || type === 'storage_org') continue;
      // A quota type added without its column here must not read as 0.
      if (!row || !(type in row)) throw new Error(`measureAll has no column for the quota type ${type}`);
      measured.set(type, value(type));
    }
    measured.set('storage_org', value('board_bytes') + value('storage_component'));
    measured.set('participants', await this.busiestBoard(organizationId, now));
    return measured;
  }

  async measure(organizationId: string, types: GaugeQuota[], now: Date): Promise<Map<GaugeQuota, number>> {
    const measured = new Map<GaugeQuota, number>();
    const storage = types.some((type) => type === 'storage_org' || type === 'storage_board') ? await this.storageByBoard(organizationId) : [];
    // storage_org and storage_component both count the components: measured once.
    let components: Promise<number> | null = null;
    const componentBytes = () => (components ??= this.componentBytes(this.db, organizationId));
    for (const type of types) measured.set(type, await this.measureOne(organizationId, type, now, storage, componentBytes));
    return measured;
  }

  private async measureOne(organizationId: string, type: GaugeQuota, now: Date, storage: number[], componentBytes: () => Promise<number>): Promise<number> {
    switch (type) {
      case 'boards':
        return this.activeBoards(this.db, organizationId, now);
      case 'participants':
        return this.busiestBoard(organizationId, now);
      case 'object_types':
        return this.objectTypes(this.db, organizationId);
      case 'storage_org':
        return storage.reduce((sum, bytes) => sum + bytes, 0) + (await componentBytes());
      case 'storage_board':
        return Math.max(0, ...storage);
      case 'storage_component':
        return componentBytes();
    }
  }

  /** Bytes of the organization's published, undeleted component versions (as inflated). */
  async componentBytes(db: Db, organizationId: string): Promise<number> {
    const total = await db.componentVersion.aggregate({ _sum: { totalBytes: true }, where: { deletedAt: null, component: { organizationId } } });
    return total._sum.totalBytes ?? 0;
  }

  /** Bytes of all the organization's boards' documents. */
  async boardBytes(organizationId: string): Promise<number> {
    return (await this.storageByBoard(organizationId)).reduce((sum, bytes) => sum + bytes, 0);
  }

  /** The most people on one active board: only boards with anyone online are looked up. */
  private async busiestBoard(organizationId: string, now: Date): Promise<number> {
    const online = await this.onlineParticipants.boards();
    if (online.length === 0) return 0;
    const boards = await this.db.board.findMany({ where: { id: { in: online }, organizationId, status: 'active', expiresAt: { gt: now } }, select: { id: true } });
    const counts = await Promise.all(boards.map((board) => this.onlineParticipants.count(board.id)));
    return Math.max(0, ...counts);
  }

  /**
   * Bytes stored per board of the organization (its document and its zone documents), from
   * `board_storage`, which triggers keep equal to the bytes of the boards' document rows
   * (migration 0011): one index entry per board. Summing the rows themselves took two index
   * seeks per board, 5 ms for an organization of 6,000 boards.
   */
  private async storageByBoard(organizationId: string): Promise<number[]> {
    const rows = await this.db.boardStorage.findMany({ where: { organizationId }, select: { bytes: true } });
    return rows.map((row) => Number(row.bytes));
  }
}
