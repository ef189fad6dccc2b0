import { pino, type Logger } from 'pino';

export type { Logger };

/** One JSON line per event. Tokens in URLs are redacted before they reach a log line. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'whiteboard' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

/** Removes access tokens and keys from a URL before logging it. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|apiKey|api_key)=)[^&]*/gi, '$1[redacted]');
}
