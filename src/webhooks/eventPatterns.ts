/** Events a webhook can carry (docs/webhooks.md). */
export const WEBHOOK_EVENTS = [
  'board.created',
  'board.ended',
  'board.archived',
  'board.unarchived',
  'board.deleted',
  'board.expired',
  'session.started',
  'session.ended',
  'participant.joined',
  'participant.left',
  'object.created',
  'object.updated',
  'object.deleted',
  'object.action',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const FAMILIES = new Set(WEBHOOK_EVENTS.map((name) => name.split('.')[0]!));
const VERBS = new Set(WEBHOOK_EVENTS.map((name) => name.split('.')[1]!));

/**
 * Whether a subscription pattern is one a subscription may use: an exact event name, `*`,
 * `<family>.*` (board, session, participant, object) or `*.<verb>` of a known verb.
 */
export function isValidPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if ((WEBHOOK_EVENTS as readonly string[]).includes(pattern)) return true;
  const [family, verb, ...rest] = pattern.split('.');
  if (rest.length > 0 || family === undefined || verb === undefined) return false;
  if (verb === '*') return FAMILIES.has(family);
  if (family === '*') return VERBS.has(verb);
  return false;
}

/** Whether an event name matches a pattern, segment by segment. */
export function matchesPattern(pattern: string, event: string): boolean {
  if (pattern === '*') return true;
  const [family, verb] = pattern.split('.');
  const [eventFamily, eventVerb] = event.split('.');
  return (family === '*' || family === eventFamily) && (verb === '*' || verb === eventVerb);
}

/** Whether any of a subscription's patterns matches the event. */
export function subscribesTo(patterns: readonly string[], event: string): boolean {
  return patterns.some((pattern) => matchesPattern(pattern, event));
}
