import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import type { ApiResponse } from '../helpers/testServer.js';
import { manifestJson, zipOf } from '../helpers/zipBuilder.js';

/**
 * `GET {APP_URL}/components/files/<name>@<version>/<path>` (and the same under /api/v1):
 * public, cookie-less files in a sandbox CSP, typed from an allow-list, cached for ever by
 * exact version and briefly as `latest`, and never anything outside the package.
 */
const { server } = serverForSuite();

/** The smallest valid PNG (1×1): its bytes must come back unchanged. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const name = `files-${randomUUID().slice(0, 8)}`;
const PAGE = '<!doctype html><link rel="stylesheet" href="style.css"><script src="assets/app.js"></script>';
const FILES: Record<string, string | Buffer> = {
  'index.html': PAGE,
  'style.css': 'body { color: red; }',
  'assets/app.js': 'document.body.append("hi");',
  'assets/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  'assets/pixel.png': PNG,
};

/** The app's origin: the test server's default APP_URL is `http://localhost:<port>`. */
const appOrigin = () => `http://localhost:${new URL(server.url).port}`;

async function publishVersion(version: string, files: Record<string, string | Buffer>): Promise<void> {
  const entries = [{ name: 'manifest.json', content: manifestJson({ name, version }) }, ...Object.entries(files).map(([path, content]) => ({ name: path, content }))];
  const form = new FormData();
  form.append('bundle', new Blob([new Uint8Array(await zipOf(entries))]), 'c.zip');
  form.append('apiKey', server.apiKey);
  const answer = await fetch(`${server.url}/api/v1/components/publish`, { method: 'POST', body: form });
  expect(answer.status, await answer.clone().text()).toBe(200);
}

beforeAll(async () => {
  await publishVersion('1.0.0', FILES);
  await publishVersion('1.1.0', { 'index.html': '<p>1.1.0</p>' });
});

interface FileAnswer extends ApiResponse {
  bytes: Buffer;
}

async function get(path: string, headers: Record<string, string> = {}): Promise<FileAnswer> {
  const response = await fetch(`${server.url}${path}`, { headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: unknown = bytes.toString('utf8');
  if (response.headers.get('content-type')?.startsWith('application/json')) body = JSON.parse(body as string);
  return { status: response.status, headers: response.headers, body, bytes };
}

/** A GET sent byte for byte as written: fetch would resolve `..` and `%2e%2e` segments before sending. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, path, method: 'GET' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

const directives = (policy: string | null) => (policy ?? '').split(';').map((directive) => directive.trim());

describe('serving a file by exact version', () => {
  it('sends index.html with its type, nosniff, the sandbox policy, immutable caching and an ETag, and no cookie', async () => {
    const file = await get(`/components/files/${name}@1.0.0/index.html`);
    expect(file.status).toBe(200);
    expect(file.body).toBe(PAGE);
    expect(file.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    const policy = directives(file.headers.get('content-security-policy'));
    expect(policy).toContain('sandbox allow-scripts');
    expect(file.headers.get('content-security-policy')).not.toContain('allow-same-origin');
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'none'");
    expect(policy).toContain(`frame-ancestors ${appOrigin()}`);
    const caching = file.headers.get('cache-control') ?? '';
    expect(caching).toContain('immutable');
    expect(caching).toContain('max-age=31536000');
    expect(file.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(file.headers.get('x-component-version')).toBe('1.0.0');
    expect(file.headers.get('set-cookie')).toBeNull();
  });

  it('answers 304 without a body to If-None-Match with the ETag, 200 to another one', async () => {
    const path = `/components/files/${name}@1.0.0/index.html`;
    const etag = (await get(path)).headers.get('etag')!;
    const cached = await get(path, { 'if-none-match': etag });
    expect(cached.status).toBe(304);
    expect(cached.bytes.length).toBe(0);
    expect(cached.headers.get('set-cookie')).toBeNull();
    const changed = await get(path, { 'if-none-match': '"something-else"' });
    expect(changed.status).toBe(200);
    expect(changed.body).toBe(PAGE);
  });

  it('serves the entry at the version’s root, and sends the root without its slash there', async () => {
    const root = await get(`/components/files/${name}@1.0.0/`);
    expect(root.status).toBe(200);
    expect(root.body).toBe(PAGE);
    // Without the slash, the entry's relative URLs would resolve one folder too high.
    const bare = await fetch(`${server.url}/components/files/${name}@1.0.0`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe(`/components/files/${name}@1.0.0/`);
  });

  it('types each file from the allow-list and serves its bytes unchanged, each under the sandbox policy', async () => {
    const expected: Record<string, string> = {
      'style.css': 'text/css; charset=utf-8',
      'assets/app.js': 'text/javascript; charset=utf-8',
      'assets/icon.svg': 'image/svg+xml',
      'assets/pixel.png': 'image/png',
    };
    for (const [path, type] of Object.entries(expected)) {
      const file = await get(`/components/files/${name}@1.0.0/${path}`);
      expect(file.status, path).toBe(200);
      expect(file.headers.get('content-type'), path).toBe(type);
      expect(file.bytes.equals(Buffer.from(FILES[path]!)), path).toBe(true);
      expect(file.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(directives(file.headers.get('content-security-policy')), path).toContain('sandbox allow-scripts');
    }
  });
});

describe('serving `latest`', () => {
  it('resolves to the highest version, cached for a minute, naming the version it served', async () => {
    const file = await get(`/components/files/${name}@latest/index.html`);
    expect(file.status).toBe(200);
    expect(file.body).toBe('<p>1.1.0</p>');
    expect(file.headers.get('x-component-version')).toBe('1.1.0');
    const caching = file.headers.get('cache-control') ?? '';
    expect(caching).toContain('max-age=60');
    expect(caching).not.toContain('immutable');
    expect(caching).not.toContain('31536000');
  });
});

describe('what is not served', () => {
  it('answers 404 in the error body to a file the package does not hold, and to an unknown component or version', async () => {
    for (const path of [
      `/components/files/${name}@1.0.0/missing.js`,
      `/components/files/${name}@1.1.0/style.css`,
      `/components/files/${name}@9.9.9/index.html`,
      `/components/files/nobody-${randomUUID().slice(0, 8)}@1.0.0/index.html`,
      `/components/files/nobody-${randomUUID().slice(0, 8)}@latest/index.html`,
    ]) {
      expectErrorBody(await get(path), { statusCode: 404, error: 'Not Found', path });
    }
  });

  it('answers 404 to a malformed name@version', async () => {
    for (const spec of ['Counter@1', `${name.toUpperCase()}@1.0.0`, name, `${name}@`, `@1.0.0`, `${name}@1.0.0@1.0.0`]) {
      const path = `/components/files/${spec}/index.html`;
      expectErrorBody(await get(path), { statusCode: 404, error: 'Not Found' });
    }
    const climbing = await rawGet('/components/files/x@../../index.html');
    expect(climbing.status).toBe(404);
  });

  it('never serves a file outside the package, however the path climbs', async () => {
    const attempts = [
      `/components/files/${name}@1.0.0/../../etc/passwd`,
      `/components/files/${name}@1.0.0/../../../../../../etc/passwd`,
      `/components/files/${name}@1.0.0/%2e%2e/%2e%2e/etc/passwd`,
      `/components/files/${name}@1.0.0/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd`,
      `/components/files/${name}@1.0.0/..%2f..%2f..%2fpackage.json`,
      `/components/files/${name}@1.0.0/%2fetc%2fpasswd`,
      `/components/files/${name}@1.1.0/../${name}@1.0.0/style.css`,
      `/components/files/${name}@1.1.0/%2e%2e/${name}@1.0.0/style.css`,
      `/api/v1/components/files/${name}@1.0.0/%2e%2e/%2e%2e/%2e%2e/package.json`,
    ];
    for (const path of attempts) {
      const answer = await rawGet(path);
      expect([400, 404], `${path} → ${answer.status}`).toContain(answer.status);
      expect(answer.body).not.toContain('root:');
      expect(answer.body).not.toContain('"dependencies"');
      expect(answer.body).not.toContain('color: red');
    }
  });
});

describe('under /api/v1', () => {
  it('serves the same file with the same headers', async () => {
    for (const spec of [`${name}@1.0.0/assets/app.js`, `${name}@latest/index.html`]) {
      const root = await get(`/components/files/${spec}`);
      const api = await get(`/api/v1/components/files/${spec}`);
      expect(api.status).toBe(200);
      expect(api.bytes.equals(root.bytes)).toBe(true);
      for (const header of ['content-type', 'x-content-type-options', 'content-security-policy', 'cache-control', 'etag', 'x-component-version', 'set-cookie']) {
        expect(api.headers.get(header), header).toBe(root.headers.get(header));
      }
    }
    expectErrorBody(await get(`/api/v1/components/files/${name}@1.0.0/missing.js`), { statusCode: 404, error: 'Not Found' });
  });
});

describe('CORS', () => {
  it('never allows `Origin: null` (a sandboxed component’s origin) on the API', async () => {
    const preflight = await fetch(`${server.url}/api/v1/boards`, {
      method: 'OPTIONS',
      headers: { origin: 'null', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const read = await fetch(`${server.url}/api/v1/boards`, { headers: { origin: 'null', 'x-api-key': server.apiKey } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    expect(read.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
