import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Ranges a webhook may never reach in production: loopback, private, link-local, metadata and the like. */
const BLOCKED_RANGES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'carrierGradeNat',
  'private',
  'reserved',
  'uniqueLocal',
  'ipv4Mapped',
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
  'benchmarking',
  'amt',
  'as112',
  'as112v6',
  'deprecated',
  'orchid2',
  'droneRemoteIdProtocolEntityTags',
]);

/** Whether an IP address is one a production webhook may connect to. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return !BLOCKED_RANGES.has(parsed.range());
}

/**
 * A DNS lookup for outgoing webhook connections that refuses non-public addresses. It runs
 * at connect time, for every connection, so a name that resolved to a public address when
 * the subscription was made cannot later be rebound to an internal one.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses;
    const blocked = list.find((entry) => !isPublicAddress(entry.address));
    if (blocked || list.length === 0) {
      const refusal = Object.assign(new Error(`webhook target ${hostname} resolves to a non-public address`), { code: 'EBLOCKEDADDRESS' });
      return callback(refusal, '', 4);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

/**
 * Checks a webhook URL when it is registered: http(s) only, https and a public host
 * unless private targets are allowed (development). The connect-time lookup above is
 * the check that counts; this one gives the caller a clear 400 early.
 */
export function webhookUrlProblem(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must use http or https';
  if (parsed.username || parsed.password) return 'must not contain credentials';
  if (allowPrivate) return null;
  if (parsed.protocol !== 'https:') return 'must use https';
  // `localhost.` (a fully qualified name) is the same host as `localhost`.
  const host = parsed.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal')) return 'must not point at a local host';
  if (ipaddr.isValid(host) && !isPublicAddress(host)) return 'must not point at a private, loopback, link-local or metadata address';
  return null;
}
