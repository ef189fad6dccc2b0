import type { Db } from '../store/database.js';
import type { GaugeQuota } from './quotaTypes.js';

/** Who is connected right now (the realtime presence registry). */
export interface OnlineParticipants {
  /** How many people are connected to a board. */
  count(boardId: string): number;
  /** The boards with anyone connected. */
  boards(): string[];
}

/**
 * Measures the quotas that are a state rather than a count per period: active boards, the
 * busiest board's participants, registered object types, and storage (bytes of the boards'
 * documents: snapshots plus update log, zone documents included; and of published components).
 */
export class UsageGauges {
  constructor(
    private readonly db: Db,
    private readonly onlineParticipants: OnlineParticipants,
  ) {}

  /** Active boards: those that count against the `boards` quota (archived and expired ones do not). */
  activeBoards(db: Db, organizationId: string, now: Date): Promise<number> {
    return db.board.count({ where: { organizationId, status: 'active', expiresAt: { gt: now } } });
  }

  objectTypes(db: Db, organizationId: string): Promise<number> {
    return db.objectType.count({ where: { organizationId } });
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
    const online = this.onlineParticipants.boards();
    if (online.length === 0) return 0;
    const boards = await this.db.board.findMany({ where: { id: { in: online }, organizationId, status: 'active', expiresAt: { gt: now } }, select: { id: true } });
    return Math.max(0, ...boards.map((board) => this.onlineParticipants.count(board.id)));
  }

  /**
   * Bytes stored per board of the organization (its document and its zone documents). A
   * document's board is the first 36 characters of its name (`<board>` or `<board>/zones/<frame>`),
   * so documents join boards on equality: one pass over the documents, where matching names by
   * prefix (`LIKE b.id || '/%'`) compared every board with every document.
   */
  private async storageByBoard(organizationId: string): Promise<number[]> {
    const rows = await this.db.$queryRaw<Array<{ bytes: bigint | number | null }>>`
      SELECT SUM(d.bytes) AS bytes FROM (
        SELECT SUBSTR(name, 1, 36) AS board_id, LENGTH(state) AS bytes FROM document_snapshots
        UNION ALL SELECT SUBSTR(name, 1, 36) AS board_id, LENGTH("update") AS bytes FROM document_updates
      ) d JOIN boards b ON b.id = d.board_id
      WHERE b.organization_id = ${organizationId}
      GROUP BY b.id`;
    return rows.map((row) => Number(row.bytes ?? 0));
  }
}
