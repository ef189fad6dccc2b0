/**
 * The one catalogue of expected failures. Domain code throws these; each edge renders
 * them in exactly one place (http/errorBody.ts for HTTP, realtime/closeEvents.ts for sockets).
 * Anything that is not an AppError is an internal error and is never shown to a client.
 */
export const ERROR_KINDS = {
  bad_request: { statusCode: 400, error: 'Bad Request' },
  unauthorized: { statusCode: 401, error: 'Unauthorized' },
  payment_required: { statusCode: 402, error: 'Payment Required' },
  forbidden: { statusCode: 403, error: 'Forbidden' },
  not_found: { statusCode: 404, error: 'Not Found' },
  conflict: { statusCode: 409, error: 'Conflict' },
  gone: { statusCode: 410, error: 'Gone' },
  payload_too_large: { statusCode: 413, error: 'Payload Too Large' },
  unsupported_media_type: { statusCode: 415, error: 'Unsupported Media Type' },
  unprocessable: { statusCode: 422, error: 'Unprocessable Entity' },
  too_many_requests: { statusCode: 429, error: 'Too Many Requests' },
  internal: { statusCode: 500, error: 'Internal Server Error' },
  bad_gateway: { statusCode: 502, error: 'Bad Gateway' },
  unavailable: { statusCode: 503, error: 'Service Unavailable' },
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** One field-level problem, as listed in the error body's `details[]`. */
export interface FieldError {
  field: string;
  message: string;
}

/** An expected failure with a client-safe message. */
export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly publicMessage: string | string[],
    readonly details?: FieldError[],
    /** Extra top-level body fields some errors carry (402 `quotaType`, 429 `retryAfter`). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(Array.isArray(publicMessage) ? publicMessage.join('; ') : publicMessage);
    this.name = 'AppError';
  }
}

/** Factories for the catalogue, so call sites read as sentences. */
export const errors = {
  badRequest: (message: string | string[], details?: FieldError[]) => new AppError('bad_request', message, details),
  unauthorized: (message = 'Missing or invalid credentials') => new AppError('unauthorized', message),
  forbidden: (message = 'You do not have access to this resource') => new AppError('forbidden', message),
  notFound: (resource: string) => new AppError('not_found', `${resource} not found`),
  conflict: (message: string) => new AppError('conflict', message),
  gone: (message: string) => new AppError('gone', message),
  payloadTooLarge: (message = 'Request body is too large') => new AppError('payload_too_large', message),
  /**
   * 415: the content is of a type the operation does not take, judged from its bytes (`found` is the
   * type they were recognised as, null when unrecognised). The body adds `acceptedTypes`.
   */
  unsupportedMediaType: (found: string | null, accepted: string[]) =>
    new AppError(
      'unsupported_media_type',
      `${found ? `Content of type ${found} is not accepted` : 'The content is of no recognised type'}; accepted: ${accepted.join(', ')}`,
      undefined,
      { acceptedTypes: accepted },
    ),
  unprocessable: (message: string | string[], details?: FieldError[]) => new AppError('unprocessable', message, details),
  unavailable: (message: string) => new AppError('unavailable', message),
  /** An upstream the service called for the client (a board's data provider) failed or answered unusably. */
  badGateway: (message: string) => new AppError('bad_gateway', message),
  /** 429; the body carries `retryAfter` (seconds) and the HTTP renderer repeats it as `Retry-After`. */
  tooManyRequests: (message: string, retryAfterSeconds: number) => new AppError('too_many_requests', message, undefined, { retryAfter: retryAfterSeconds }),
  /** A quota of the plan is used up (402; the body adds `quotaType`, `current`, `limit`, `upgradeUrl`). */
  quotaExceeded: (quota: { quotaType: string; current: number; limit: number; upgradeUrl: string }) =>
    new AppError('payment_required', `Quota exceeded: ${quota.quotaType} (${quota.current} of ${quota.limit} used)`, undefined, quota),
  /** The plan does not include the feature at all (limit "none"): 403, not 402. */
  planLacksFeature: (quota: { quotaType: string; plan: string; upgradeUrl: string }) =>
    new AppError('forbidden', `The ${quota.plan} plan does not include ${quota.quotaType}`, undefined, {
      quotaType: quota.quotaType,
      current: 0,
      limit: 0,
      upgradeUrl: quota.upgradeUrl,
    }),
};
