import type { Board as BoardRow } from '../../generated/sqlite/index.js';
import { assertNever } from '../util/assertNever.js';
import type { BoardStatus } from './schemas.js';

/** Defaults of `config` (SPEC Limits). */
export const DEFAULT_MAX_PARTICIPANTS = 50;
export const DEFAULT_ALLOW_ANONYMOUS = true;
/** Board time-to-live when `expires_in_hours` is not given (SPEC Limits: 72 hours). */
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
  externalData: Record<string, unknown> | null;
  tutorial: TutorialFields | null;
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

function lifecycleOf(row: BoardRow): BoardLifecycle {
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

/** Maps a database row to the domain board. */
export function boardFromRow(row: BoardRow): Board {
  return {
    id: row.id,
    organizationId: row.organizationId,
    title: row.title,
    externalId: row.externalId,
    ownerExternalId: row.ownerExternalId,
    lifecycle: lifecycleOf(row),
    config: JSON.parse(row.config) as BoardConfig,
    webhookUrl: row.webhookUrl,
    externalData: row.externalData ? (JSON.parse(row.externalData) as Record<string, unknown>) : null,
    tutorial: row.tutorial ? (JSON.parse(row.tutorial) as TutorialFields) : null,
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
