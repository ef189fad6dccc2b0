import * as decoding from 'lib0/decoding';
import { FREE_JSON_LIMITS, findJsonViolation, type JsonLimits } from '../util/jsonBounds.js';

/**
 * Bounds on the awareness (presence) updates a socket sends. Every state is held by the server,
 * relayed to every client of the document at cursor rate, and written as JSON again for each
 * relay by y-protocols' recursive `JSON.stringify`: a state nested thousands of levels deep
 * throws there (for every relay), and a megabyte one is copied to every client many times a
 * second. A cursor, a name and a colour take a few hundred bytes.
 */

/** Most bytes of one awareness update (every state it carries, encoded). */
export const MAX_AWARENESS_UPDATE_BYTES = 65_536;

/** One state: bounded like any free-form value a client writes (depth, text), and small. */
export const AWARENESS_STATE_LIMITS: JsonLimits = { ...FREE_JSON_LIMITS, maxBytes: MAX_AWARENESS_UPDATE_BYTES };

/**
 * Why an Awareness frame (address, message type, then the y-protocols awareness update: a
 * count, and per state its client id, clock and JSON text) may not be relayed, or null.
 * JSON.parse is iterative in V8, so parsing a deep state here costs no stack; the walk is too.
 */
export function awarenessProblem(frame: Uint8Array): string | null {
  let update: Uint8Array;
  let states: string[];
  try {
    const outer = decoding.createDecoder(frame);
    decoding.readVarString(outer);
    decoding.readVarUint(outer);
    update = decoding.readVarUint8Array(outer);
    if (update.byteLength > MAX_AWARENESS_UPDATE_BYTES) return `awareness update is larger than ${MAX_AWARENESS_UPDATE_BYTES} bytes`;
    states = stateTexts(update);
  } catch {
    return 'awareness update cannot be decoded';
  }
  for (const text of states) {
    let state: unknown;
    try {
      state = JSON.parse(text);
    } catch {
      return 'awareness state is not JSON';
    }
    const violation = findJsonViolation(state, AWARENESS_STATE_LIMITS, ['state']);
    if (violation) return `awareness ${violation.field} ${violation.message}`;
  }
  return null;
}

/** The JSON text of each state of an awareness update; throws when the update ends too soon. */
function stateTexts(update: Uint8Array): string[] {
  const decoder = decoding.createDecoder(update);
  const count = decoding.readVarUint(decoder);
  const texts: string[] = [];
  // Each state takes at least three bytes, so a count beyond what the bytes hold ends in a throw.
  for (let index = 0; index < count; index += 1) {
    decoding.readVarUint(decoder);
    decoding.readVarUint(decoder);
    texts.push(decoding.readVarString(decoder));
  }
  return texts;
}
