/** The instance channel that carries CacheSignal. */
export const CACHE_SIGNALS_CHANNEL = 'caches';

/**
 * A change made on one instance that makes what the others keep in memory stale
 * (multi-instance mode): each drops its copy and reads the row again when it needs it.
 * Frames travel with the socket signals (realtime/socketSignals.ts), which also re-decide
 * the sockets a frame change concerns.
 */
export type CacheSignal =
  /** A board's settings, lifecycle or existence (access grants, its webhook target). */
  | { kind: 'board'; boardId: string }
  /** An organization's plan or API keys. */
  | { kind: 'organization'; organizationId: string }
  | { kind: 'webhook-subscriptions'; organizationId: string }
  /** An agent of a board: created, changed, paused, resumed, reset or deleted. */
  | { kind: 'agent'; boardId: string; agentId: string };
