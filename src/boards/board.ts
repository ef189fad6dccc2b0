import type { Board as BoardRow } from '../../generated/sqlite/index.js';
import { assertNever } from '../util/assertNever.js';
import type { BoardStatus } from './schemas.js';

/** What a board's `config` is where its creation leaves a field out. */
export const DEFAULT_MAX_PARTICIPANTS = 50;
export const DEFAULT_ALLOW_ANONYMOUS = true;
/** Boards live 72 hours unless `expires_in_hours` says otherwise. */
export const DEFAULT_EXPIRES_IN_HOURS = 72;

export interface BoardConfig {
  max_participants: number;
  allow_anonymous: boolean;
  components: Array<{ type: string; url?: string; version?: string; props?: Record<string, unknown> }>;
}

/** Fields only a tutorial flow uses; stored and returned as given. */
export interface TutorialFields {
  is_sandbox?: boolean;
  mock_external_data?: Record<string, unknown>;
  data_provider?: Record<string, unknown>;
}

/** A board's lifecycle: which timestamps exist depends on where it is. */
export type BoardLifecycle =
  | { status: 'active' }
  | { status: 'archived'; archivedAt: Date }
  | { status: 'expired' };

/** A board as the domain sees it. */
export interface Board {
  id: string;
  organizationId: string;
  title: string;
  externalId: string | null;
  ownerExternalId: string | null;
  lifecycle: BoardLifecycle;
  config: BoardConfig;
  webhookUrl: string | null;
  tokenNonce: string;
  stateVersion: number;
  objectsCount: number;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  sessionEndedAt: Date | null;
  /** Whether deliveries to `webhookUrl` have a signing secret. */
  hasWebhookSecret: boolean;
  /** Set only right after a signing secret was created, to show it once. */
  issuedWebhookSecret?: string;
}

function lifecycleOf(row: BoardSummaryRow): BoardLifecycle {
  const status = row.status as BoardStatus;
  switch (status) {
    case 'active':
      return { status };
    case 'archived':
      return { status, archivedAt: row.archivedAt ?? row.updatedAt };
    case 'expired':
      return { status };
    default:
      return assertNever(status);
  }
}

/**
 * Columns an ordinary board lookup leaves out (Prisma `omit`): free-form values a caller may fill
 * up to the body limit (10 MB). Every access check reads a board; reading and parsing megabytes
 * there would hold the event loop on every request. They are read only where shown (`BoardDetails`).
 */
export const LARGE_BOARD_COLUMNS = { externalData: true, tutorial: true } as const;

/** A board row without its large columns. */
export type BoardSummaryRow = Omit<BoardRow, keyof typeof LARGE_BOARD_COLUMNS>;

/** The free-form values a board keeps as given: shown by GET /boards/<id>, copied by duplicate. */
export interface BoardDetails {
  externalData: Record<string, unknown> | null;
  tutorial: TutorialFields | null;
}

/** Parses the large columns of a board row. */
export function detailsFromRow(row: Pick<BoardRow, keyof typeof LARGE_BOARD_COLUMNS>): BoardDetails {
  return {
    externalData: row.externalData ? (JSON.parse(row.externalData) as Record<string, unknown>) : null,
    tutorial: row.tutorial ? (JSON.parse(row.tutorial) as TutorialFields) : null,
  };
}

/** Maps a database row to the domain board. */
export function boardFromRow(row: BoardSummaryRow): Board {
  return {
    id: row.id,
    organizationId: row.organizationId,
    title: row.title,
    externalId: row.externalId,
    ownerExternalId: row.ownerExternalId,
    lifecycle: lifecycleOf(row),
    config: JSON.parse(row.config) as BoardConfig,
    webhookUrl: row.webhookUrl,
    tokenNonce: row.tokenNonce,
    stateVersion: row.stateVersion,
    objectsCount: row.objectsCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    expiresAt: row.expiresAt,
    sessionEndedAt: row.sessionEndedAt,
    hasWebhookSecret: row.webhookSecret !== null,
  };
}

/** Fills in the config defaults. */
export function configWithDefaults(input: Partial<BoardConfig> | undefined, base?: BoardConfig): BoardConfig {
  return {
    max_participants: input?.max_participants ?? base?.max_participants ?? DEFAULT_MAX_PARTICIPANTS,
    allow_anonymous: input?.allow_anonymous ?? base?.allow_anonymous ?? DEFAULT_ALLOW_ANONYMOUS,
    components: input?.components ?? base?.components ?? [],
  };
}
