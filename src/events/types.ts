import type { BoardObject } from '../boards/boardObjects.js';
import type { ChangeCause } from '../boards/ports.js';

/**
 * Every event the service raises, with its payload. Webhooks, agents and sockets
 * subscribe to these through the one in-process bus (events/bus.ts).
 * Field names are those of a webhook delivery's `data` object (docs/webhooks.md).
 */
interface BoardScoped {
  board_id: string;
  organization_id: string;
}

interface BoardSummary extends BoardScoped {
  title: string;
  external_id: string | null;
}

export interface BoardCreatedPayload extends BoardSummary {
  host_link: string;
  guest_link: string;
  created_at: string;
}

export interface BoardArchivedPayload extends BoardSummary {
  archived_at: string;
}

export interface BoardUnarchivedPayload extends BoardSummary {
  restored_at: string;
}

export interface BoardEndedPayload extends BoardSummary {
  session_ended_at: string;
}

export interface BoardDeletedPayload extends BoardSummary {
  deleted_at: string;
}

export interface BoardExpiredPayload extends BoardSummary {
  expires_at: string;
  expired_at: string;
}

/** Object events of a zone's document carry the zone (frame) id. */
interface ObjectScoped extends BoardScoped {
  zone_id?: string;
}

export interface ObjectCreatedPayload extends ObjectScoped {
  object_id: string;
  object_type: string;
  object_data: Record<string, unknown>;
  version: number;
  created_by: string | null;
}

export interface SessionStartedPayload extends BoardScoped {
  session_id: string;
  started_at: string;
}

export interface SessionEndedPayload extends BoardScoped {
  session_id: string;
  started_at: string;
  ended_at: string;
  session_duration_seconds: number;
}

/** The user block of participant events. */
export interface ParticipantUser {
  user_id: string;
  user_name: string | null;
  user_role: 'host' | 'guest';
  user_type: 'verified-student' | 'authenticated' | 'anonymous';
  external_user_id: string | null;
  external_source: string | null;
}

export interface ParticipantJoinedPayload extends BoardScoped {
  /** The webhook payload adds the board's `external_data` here (webhooks/outbox.ts): only deliveries read it. */
  board: { title: string; external_id: string | null; created_at: string };
  user: ParticipantUser;
  participant_count: number;
  joined_at: string;
}

export interface ParticipantLeftPayload extends BoardScoped {
  user: ParticipantUser;
  participant_count: number;
  joined_at: string;
  left_at: string;
}

export interface ObjectUpdatedPayload extends ObjectScoped {
  object_id: string;
  object_type: string;
  changes: { before: Record<string, unknown>; after: Record<string, unknown> };
  version: number;
  updated_by: string | null;
}

export interface ObjectDeletedPayload extends ObjectScoped {
  object_id: string;
  object_type: string;
  object_data: Record<string, unknown>;
  version: number;
  deleted_by: string | null;
}

/** A custom action performed on a component object (components/componentActions.ts): the `object.action` event. */
export interface ObjectActionPayload extends ObjectScoped {
  object_id: string;
  object_type: string;
  object_data: Record<string, unknown>;
  action_id: string;
  action_label: string | null;
  action_metadata: Record<string, unknown>;
  /** The user the credential vouches for; null for the API key and the shared guest link. */
  user_id: string | null;
  user_name: string | null;
  user_role: 'host' | 'guest';
  /** How many times this action id was performed on this object, this one included. */
  action_count: number;
  timestamp: string;
}

/**
 * A participant's reported location moved from one frame to another (either may be null:
 * outside every frame). Internal: agents hear it, webhooks do not carry it.
 */
export interface ParticipantMovedPayload extends BoardScoped {
  user_id: string;
  user_role: 'host' | 'guest';
  from_frame_id: string | null;
  to_frame_id: string | null;
}

export interface EventPayloadByName {
  'board.created': BoardCreatedPayload;
  'board.archived': BoardArchivedPayload;
  'board.unarchived': BoardUnarchivedPayload;
  'board.ended': BoardEndedPayload;
  'board.deleted': BoardDeletedPayload;
  'board.expired': BoardExpiredPayload;
  'object.created': ObjectCreatedPayload;
  'object.updated': ObjectUpdatedPayload;
  'object.deleted': ObjectDeletedPayload;
  'object.action': ObjectActionPayload;
  'session.started': SessionStartedPayload;
  'session.ended': SessionEndedPayload;
  'participant.joined': ParticipantJoinedPayload;
  'participant.left': ParticipantLeftPayload;
  'participant.moved': ParticipantMovedPayload;
}

export type EventName = keyof EventPayloadByName;

/**
 * What the service knows about an event beyond its payload, for in-process listeners only
 * (never delivered to webhooks): the agent action that caused a change, and the object an
 * object event is about (its position and size, which the payload does not carry).
 */
export interface EventMeta {
  cause?: ChangeCause;
  object?: BoardObject;
}

/** An event as delivered to subscribers: its name, payload, the time it happened, and its meta. */
export type BusEvent = {
  [N in EventName]: { name: N; payload: EventPayloadByName[N]; occurredAt: Date; meta: EventMeta };
}[EventName];
