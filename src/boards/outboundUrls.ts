import type { FieldError } from '../errors.js';
import type { BoardConfigInput } from './schemas.js';

/** Why a URL may not be used as an outbound target (the rules of webhook targets), or null. */
export type UrlRule = (url: string) => string | null;

/**
 * The fields of a board's settings naming a URL the server or a browser would fetch (a data
 * provider, components' `url`) that break the rules of webhook targets (production: https,
 * public hosts only), each with why.
 */
export function outboundUrlProblems(input: { config?: BoardConfigInput; data_provider?: Record<string, unknown> }, urlProblem: UrlRule): FieldError[] {
  const problems: FieldError[] = [];
  const providerUrl = input.data_provider?.webhook_url;
  const providerProblem = typeof providerUrl === 'string' ? providerUrlProblem(providerUrl, urlProblem) : null;
  if (providerProblem) problems.push({ field: 'data_provider.webhook_url', message: providerProblem });
  for (const [index, component] of (input.config?.components ?? []).entries()) {
    const target = component.url === undefined ? null : httpTargetOf(component.url);
    const problem = target === null ? null : urlProblem(target);
    if (problem) problems.push({ field: `config.components.${index}.url`, message: problem });
  }
  return problems;
}

/**
 * Why a data provider URL may not be used, checked with its `:param` placeholders filled by a
 * harmless value. Placeholders may fill the path and query, never the host: one written in the
 * host leaves the URL unparsable, or makes its host change with the value.
 */
function providerUrlProblem(url: string, urlProblem: UrlRule): string | null {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)?.[0] ?? '';
  const filled = (value: string) => authority + url.slice(authority.length).replace(/:[A-Za-z_][A-Za-z0-9_]*/g, value);
  const problem = urlProblem(filled('param'));
  if (problem) return problem;
  return new URL(filled('param')).host === new URL(filled('other')).host ? null : 'must not have a :param placeholder in its host';
}

/**
 * The http(s) URL a component URL makes a browser fetch from a host of its own choosing, or
 * null for a relative path or a name of another scheme (`component://…`), resolved against
 * the service's own component origin later.
 */
function httpTargetOf(url: string): string | null {
  const base = new URL('https://components.invalid/');
  let resolved: URL;
  try {
    resolved = new URL(url, base);
  } catch {
    return null;
  }
  const http = resolved.protocol === 'https:' || resolved.protocol === 'http:';
  return http && resolved.host !== base.host ? resolved.href : null;
}
