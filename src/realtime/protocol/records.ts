/**
 * The records the realtime messages carry, as JSON on the wire. The server's domains keep
 * their own types (src/frames, src/boards, src/agents, src/components); realtime/messages.ts
 * fails to compile when one of them and its record here part.
 */

/** Any JSON value (a component event's payload). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type LockMode = 'none' | 'soft' | 'hard';

/** A frame as the API and the `frame:*` messages carry it; with an assignment it is a student zone. */
export interface FrameRecord {
  id: string;
  board_id: string;
  name: string;
  order: number;
  bounds_x: number;
  bounds_y: number;
  bounds_width: number;
  bounds_height: number;
  lock_mode: LockMode;
  background_color: string | null;
  visibility: 'active' | 'hidden' | 'archived';
  parent_frame_id: string | null;
  assigned_participant_id: string | null;
  assigned_user_id: string | null;
  zone_visibility: 'visible' | 'hidden' | 'host_only';
  zone_version: number;
  created_at: string;
  updated_at: string;
}

/** A viewport rectangle in board pixels. */
export interface ViewportBounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How a participant is known: a person, or a visible AI agent of the board. */
export type UserType = 'verified-student' | 'authenticated' | 'anonymous' | 'agent';

/** A participant as sockets see it (`participant:joined`) and as REST lists it (`includeParticipants=true`). */
export interface ParticipantView {
  user_id: string;
  /** Two entries may show one `user_id`, never with the same type. */
  user_type: UserType;
  role: 'host' | 'guest';
  joined_at: string;
  color: string;
  /** A readable name: the one given or declared, else `Host` / `Guest <id's end>`. */
  user_name: string;
}

/** One field-level problem, as an error body's `details[]` lists it. */
export interface FieldError {
  field: string;
  message: string;
}

/** A notification an AI agent of the board sent (`agent:notification`). */
export interface AgentNotification {
  agent: { id: string; name: string };
  level: 'info' | 'success' | 'warning' | 'error';
  title: string | null;
  message: string;
  /** The object it is about, if any. */
  objectId: string | null;
}
