import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * One JSON line per event. Tokens in URLs are redacted before they reach a log line.
 * Lines go to stdout asynchronously: a synchronous write per request line cost a system
 * call each; written asynchronously, the lines that arrive while one write is under way
 * leave in the next. pino flushes what is left synchronously when the process exits.
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { service: 'whiteboard' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.destination({ dest: 1, sync: false }),
  );
}

/** Removes access tokens and keys from a URL before logging it. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|apiKey|api_key)=)[^&]*/gi, '$1[redacted]');
}
