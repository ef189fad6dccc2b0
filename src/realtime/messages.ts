import type { AgentNotification } from '../agents/ports.js';
import type { ParticipantView, ViewportBounds } from '../boards/ports.js';
import type { JsonValue } from '../components/manifest.js';
import type { FieldError } from '../errors.js';
import type { FrameRecord, LockMode } from '../frames/frame.js';
import type { AllListed } from './protocol/listed.js';
import type * as Wire from './protocol/records.js';

/**
 * The stateless JSON messages of the realtime protocol, defined once in realtime/protocol/
 * (the browser client bundles the same module); the server's code imports them from here.
 */
export type { ClientMessage } from './protocol/clientMessages.js';
export { SUBSCRIBABLE_EVENTS, type ServerMessage, type SubscribableEvent, type WriteRejected } from './protocol/serverMessages.js';

/** The protocol restates these records of the domains for the browser: [the domain's, the protocol's]. */
interface RestatedRecords {
  FrameRecord: [FrameRecord, Wire.FrameRecord];
  LockMode: [LockMode, Wire.LockMode];
  ViewportBounds: [ViewportBounds, Wire.ViewportBounds];
  ParticipantView: [ParticipantView, Wire.ParticipantView];
  AgentNotification: [AgentNotification, Wire.AgentNotification];
  JsonValue: [JsonValue, Wire.JsonValue];
  FieldError: [FieldError, Wire.FieldError];
}

/** Whether A and B are assignable both ways (a field added, removed or changed on one side only makes them differ). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compiles only while each domain record and its protocol record are the same; an error names the one that is not. */
type _RecordsAgree = AllListed<{ [K in keyof RestatedRecords]: Same<RestatedRecords[K][0], RestatedRecords[K][1]> extends true ? never : K }[keyof RestatedRecords]>;
