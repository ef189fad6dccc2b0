import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { PLAN_LIMITS } from '../../src/quotas/quotaTypes.js';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import type { ApiResponse } from '../helpers/testServer.js';
import { manifestJson, rawZipOf, zipOf } from '../helpers/zipBuilder.js';

/**
 * The component registry's API over real HTTP (docs/components.md):
 * publishing as a multipart form, versions and `latest`, ownership of names, deprecation,
 * deletion, and the storage the versions count against.
 */
const { server } = serverForSuite();

/** A component name no other test uses (names are global: the first organization owns one). */
const uniqueName = (prefix = 'c') => `${prefix}-${randomUUID().slice(0, 8)}`;

interface BuiltPackage {
  zip: Buffer;
  /** Every file's inflated bytes, manifest included: what the version counts in storage. */
  bytes: number;
}

/** A valid package: manifest, entry page and a script (the page names its version, so uploads differ). */
async function componentZip(name: string, version: string, options: { author?: string; page?: string } = {}): Promise<BuiltPackage> {
  const files = {
    'manifest.json': manifestJson({ name, version, ...(options.author ? { author: options.author } : {}) }),
    'index.html': options.page ?? `<!doctype html><p>${name}@${version}</p><script src="assets/app.js"></script>`,
    'assets/app.js': `console.log(${JSON.stringify(version)});`,
  };
  const zip = await zipOf(Object.entries(files).map(([fileName, content]) => ({ name: fileName, content })));
  return { zip, bytes: Object.values(files).reduce((sum, content) => sum + Buffer.byteLength(content), 0) };
}

interface PublishOptions {
  /** The file field (default `bundle`). */
  field?: string;
  /** The key; `null` sends none (default: the suite organization's). */
  apiKey?: string | null;
  /** Where the key goes: the form field `apiKey` (default) or the `X-API-Key` header. */
  via?: 'form' | 'header';
}

/** `POST /components/publish` as a multipart form, the file appended before the key field. */
async function publish(zip: Buffer, options: PublishOptions = {}): Promise<ApiResponse> {
  const { field = 'bundle', via = 'form' } = options;
  const apiKey = options.apiKey === undefined ? server.apiKey : options.apiKey;
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(zip)]), 'c.zip');
  const headers: Record<string, string> = {};
  if (apiKey !== null && via === 'form') form.append('apiKey', apiKey);
  if (apiKey !== null && via === 'header') headers['x-api-key'] = apiKey;
  return send('/api/v1/components/publish', { method: 'POST', body: form, headers });
}

async function send(path: string, init: RequestInit = {}): Promise<ApiResponse> {
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: kept as text.
  }
  return { status: response.status, headers: response.headers, body };
}

/** `GET /components` as an organization (default: the suite's). */
async function listed(apiKey = server.apiKey): Promise<Array<Record<string, any>>> {
  const list = await server.api('GET', '/components', undefined, { 'x-api-key': apiKey });
  expect(list.status).toBe(200);
  return list.body.components;
}

async function entryOf(name: string, apiKey = server.apiKey): Promise<Record<string, any> | undefined> {
  return (await listed(apiKey)).find((component) => component.name === name);
}

/** `current` of a storage quota of an organization. */
async function storage(apiKey: string, type: 'storage_component' | 'storage_org' = 'storage_component'): Promise<number> {
  const read = await server.api('GET', `/quota/${type}`, undefined, { 'x-api-key': apiKey });
  expect(read.status).toBe(200);
  return read.body.current;
}

const fileOf = (name: string, version: string, path = 'index.html') => send(`/components/files/${name}@${version}/${path}`);

async function published(name: string, version: string, apiKey = server.apiKey, options: { author?: string; page?: string } = {}): Promise<BuiltPackage> {
  const built = await componentZip(name, version, options);
  const answer = await publish(built.zip, { apiKey });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return built;
}

describe('publishing', () => {
  it('publishes a ZIP sent as `bundle` with the key in the form field `apiKey`', async () => {
    const name = uniqueName();
    const { zip } = await componentZip(name, '1.0.0');
    const answer = await publish(zip);
    expect(answer.status).toBe(200);
    const base = `http://localhost:${new URL(server.url).port}/components/files/${name}@1.0.0/`;
    expect(answer.body).toEqual({
      status: 'published',
      component: { name, version: '1.0.0', url: `${base}index.html`, assetsBaseUrl: base },
      publishedAt: expect.stringMatching(ISO_TIMESTAMP),
    });
    const page = await fileOf(name, '1.0.0');
    expect(page.status).toBe(200);
    expect(page.body).toBe(`<!doctype html><p>${name}@1.0.0</p><script src="assets/app.js"></script>`);
  });

  it('publishes a ZIP sent as `package` with the X-API-Key header, for the key’s organization', async () => {
    const other = await server.newOrganization();
    const name = uniqueName();
    const answer = await publish((await componentZip(name, '1.0.0')).zip, { field: 'package', via: 'header', apiKey: other.apiKey });
    expect(answer.status).toBe(200);
    expect(answer.body.component).toMatchObject({ name, version: '1.0.0' });
    expect(await entryOf(name, other.apiKey)).toMatchObject({ versions: ['1.0.0'] });
    expect(await entryOf(name)).toBeUndefined();
  });

  it('answers 401 without a key or with a wrong one (form field or header), publishing nothing', async () => {
    const name = uniqueName();
    const { zip } = await componentZip(name, '1.0.0');
    expectErrorBody(await publish(zip, { apiKey: null }), { statusCode: 401, error: 'Unauthorized' });
    expectErrorBody(await publish(zip, { apiKey: 'wb_wrong_key' }), { statusCode: 401, error: 'Unauthorized' });
    expectErrorBody(await publish(zip, { apiKey: 'wb_wrong_key', via: 'header' }), { statusCode: 401, error: 'Unauthorized' });
    expect(await entryOf(name)).toBeUndefined();
    expect((await fileOf(name, '1.0.0')).status).toBe(404);
  });

  it('answers 400 to a body that is not multipart, without a file, with the file under another name, or with two files', async () => {
    const name = uniqueName();
    const { zip } = await componentZip(name, '1.0.0');
    const path = '/api/v1/components/publish';
    const headers = { 'x-api-key': server.apiKey };
    expectErrorBody(await send(path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"bundle":"x"}' }), {
      statusCode: 400,
      error: 'Bad Request',
      path,
    });
    expectErrorBody(await send(path, { method: 'POST', headers: { ...headers, 'content-type': 'application/zip' }, body: new Uint8Array(zip) }), { statusCode: 400, error: 'Bad Request' });

    const keyOnly = new FormData();
    keyOnly.append('apiKey', server.apiKey);
    expectErrorBody(await send(path, { method: 'POST', body: keyOnly }), { statusCode: 400, error: 'Bad Request' });

    expectErrorBody(await publish(zip, { field: 'file' }), { statusCode: 400, error: 'Bad Request' });

    const twoFiles = new FormData();
    twoFiles.append('bundle', new Blob([new Uint8Array(zip)]), 'a.zip');
    twoFiles.append('bundle', new Blob([new Uint8Array(zip)]), 'b.zip');
    twoFiles.append('apiKey', server.apiKey);
    expectErrorBody(await send(path, { method: 'POST', body: twoFiles }), { statusCode: 400, error: 'Bad Request' });
    const bothNames = new FormData();
    bothNames.append('bundle', new Blob([new Uint8Array(zip)]), 'a.zip');
    bothNames.append('package', new Blob([new Uint8Array(zip)]), 'b.zip');
    expectErrorBody(await send(path, { method: 'POST', body: bothNames, headers }), { statusCode: 400, error: 'Bad Request' });

    expect(await entryOf(name)).toBeUndefined();
  });

  it('answers 413 to a bundle over 10 MiB and keeps answering other requests', async () => {
    const tooBig = randomBytes(10 * 1024 * 1024 + 1);
    const answer = await publish(tooBig, { via: 'header' });
    expectErrorBody(answer, { statusCode: 413, error: 'Payload Too Large' });
    const health = await send('/health');
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    // The same bytes with the key in the form (read after the file) are refused alike.
    expect((await publish(tooBig)).status).toBe(413);
    expect((await send('/health')).status).toBe(200);
  });
});

describe('versions', () => {
  it('orders versions by semver, `latest` the highest release, the author from the manifest', async () => {
    const name = uniqueName();
    for (const version of ['1.0.0', '1.10.0', '1.9.0']) await published(name, version, server.apiKey, { author: 'Ada Lovelace' });
    expect(await entryOf(name)).toMatchObject({ name, versions: ['1.10.0', '1.9.0', '1.0.0'], latest: '1.10.0', author: 'Ada Lovelace' });

    await published(name, '2.0.0-beta.1', server.apiKey, { author: 'Ada Lovelace' });
    expect(await entryOf(name)).toMatchObject({ versions: ['2.0.0-beta.1', '1.10.0', '1.9.0', '1.0.0'], latest: '1.10.0' });
    const latest = await fileOf(name, 'latest');
    expect(latest.status).toBe(200);
    expect(latest.headers.get('x-component-version')).toBe('1.10.0');
    // A prerelease is still served when asked for by its exact version.
    expect((await fileOf(name, '2.0.0-beta.1')).status).toBe(200);
  });

  it('refuses to republish a version (409), still serving the first upload, and a deleted version alike', async () => {
    const name = uniqueName();
    await published(name, '1.0.0', server.apiKey, { page: 'first upload' });
    const again = await componentZip(name, '1.0.0', { page: 'second upload' });
    expectErrorBody(await publish(again.zip), { statusCode: 409, error: 'Conflict' });
    expect((await fileOf(name, '1.0.0')).body).toBe('first upload');

    await published(name, '1.1.0');
    expect((await server.api('DELETE', `/components/${name}/1.1.0`)).status).toBe(204);
    expectErrorBody(await publish((await componentZip(name, '1.1.0')).zip), { statusCode: 409, error: 'Conflict' });
    expect((await fileOf(name, '1.1.0')).status).toBe(410);
    expect(await entryOf(name)).toMatchObject({ versions: ['1.0.0'] });
  });

  it('keeps a name for the organization that first published it: another gets 403 and does not see it', async () => {
    const name = uniqueName();
    await published(name, '1.0.0');
    const other = await server.newOrganization();
    expectErrorBody(await publish((await componentZip(name, '2.0.0')).zip, { apiKey: other.apiKey }), { statusCode: 403, error: 'Forbidden' });
    expect(await entryOf(name, other.apiKey)).toBeUndefined();
    expect(await entryOf(name)).toMatchObject({ versions: ['1.0.0'], latest: '1.0.0' });
    expect((await fileOf(name, '2.0.0')).status).toBe(404);
  });
});

describe('deprecation', () => {
  it('serves a deprecated version with `Deprecation: true`, lists it, and skips it for `latest` until undone', async () => {
    const name = uniqueName();
    await published(name, '1.0.0');
    await published(name, '1.1.0');
    const marked = await server.api('PATCH', `/components/${name}/1.1.0`, { deprecated: true, message: 'Use 1.0.0' });
    expect(marked.status).toBe(200);

    const file = await fileOf(name, '1.1.0');
    expect(file.status).toBe(200);
    expect(file.headers.get('deprecation')).toBe('true');
    expect((await fileOf(name, '1.0.0')).headers.get('deprecation')).toBeNull();
    expect(await entryOf(name)).toMatchObject({ versions: ['1.1.0', '1.0.0'], latest: '1.0.0', deprecated: [{ version: '1.1.0', message: 'Use 1.0.0' }] });
    expect((await fileOf(name, 'latest')).headers.get('x-component-version')).toBe('1.0.0');

    expect((await server.api('PATCH', `/components/${name}/1.1.0`, { deprecated: false })).status).toBe(200);
    expect((await fileOf(name, '1.1.0')).headers.get('deprecation')).toBeNull();
    expect(await entryOf(name)).toMatchObject({ latest: '1.1.0', deprecated: [] });
    expect((await fileOf(name, 'latest')).headers.get('x-component-version')).toBe('1.1.0');
  });

  it('names the highest deprecated version `latest` when every version is deprecated', async () => {
    const name = uniqueName();
    await published(name, '1.0.0');
    await published(name, '1.1.0');
    for (const version of ['1.0.0', '1.1.0']) expect((await server.api('PATCH', `/components/${name}/${version}`, { deprecated: true })).status).toBe(200);
    expect(await entryOf(name)).toMatchObject({ latest: '1.1.0' });
  });

  it('answers 400 to a bad body, 404 to an unknown version, and 404 to another organization (PATCH and DELETE)', async () => {
    const name = uniqueName();
    await published(name, '1.0.0');
    const path = `/components/${name}/1.0.0`;
    expectErrorBody(await server.api('PATCH', path, { deprecated: 'yes' }), { statusCode: 400, error: 'Bad Request', field: 'deprecated' });
    expectErrorBody(await server.api('PATCH', path, { message: 'no flag' }), { statusCode: 400, error: 'Bad Request', field: 'deprecated' });
    expect((await server.api('PATCH', path, { deprecated: true, extra: 1 })).status).toBe(400);
    expectErrorBody(await server.api('PATCH', `/components/${name}/9.9.9`, { deprecated: true }), { statusCode: 404, error: 'Not Found' });
    expectErrorBody(await server.api('PATCH', `/components/${uniqueName()}/1.0.0`, { deprecated: true }), { statusCode: 404, error: 'Not Found' });

    const other = await server.newOrganization();
    const asOther = { 'x-api-key': other.apiKey };
    expectErrorBody(await server.api('PATCH', path, { deprecated: true }, asOther), { statusCode: 404, error: 'Not Found' });
    expectErrorBody(await server.api('DELETE', path, undefined, asOther), { statusCode: 404, error: 'Not Found' });
    expect(await entryOf(name)).toMatchObject({ versions: ['1.0.0'], deprecated: [] });
    const file = await fileOf(name, '1.0.0');
    expect(file.status).toBe(200);
    expect(file.headers.get('deprecation')).toBeNull();
  });
});

describe('deletion', () => {
  it('deletes a version: 204, its files 410, `latest` falls back, unlisted, its bytes no longer counted', async () => {
    const org = await server.newOrganization();
    const name = uniqueName();
    const first = await published(name, '1.0.0', org.apiKey);
    const second = await published(name, '1.1.0', org.apiKey);
    expect(await storage(org.apiKey)).toBe(first.bytes + second.bytes);

    const removed = await server.api('DELETE', `/components/${name}/1.1.0`, undefined, { 'x-api-key': org.apiKey });
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    for (const path of ['index.html', 'assets/app.js']) expectErrorBody(await fileOf(name, '1.1.0', path), { statusCode: 410, error: 'Gone' });
    expect((await fileOf(name, '1.0.0')).status).toBe(200);
    expect((await fileOf(name, 'latest')).headers.get('x-component-version')).toBe('1.0.0');
    expect(await entryOf(name, org.apiKey)).toMatchObject({ versions: ['1.0.0'], latest: '1.0.0' });
    expect(await storage(org.apiKey)).toBe(first.bytes);
    expectErrorBody(await server.api('DELETE', `/components/${name}/1.1.0`, undefined, { 'x-api-key': org.apiKey }), { statusCode: 404, error: 'Not Found' });
  });
});

describe('storage', () => {
  it('counts the inflated bytes of every version in storage_component and storage_org', async () => {
    const org = await server.newOrganization('starter');
    expect(await storage(org.apiKey)).toBe(0);
    const name = uniqueName();
    const first = await published(name, '1.0.0', org.apiKey);
    expect(await storage(org.apiKey)).toBe(first.bytes);
    const second = await published(name, '1.0.1', org.apiKey, { page: 'x'.repeat(5_000) });
    expect(await storage(org.apiKey)).toBe(first.bytes + second.bytes);
    expect(await storage(org.apiKey, 'storage_org')).toBe(first.bytes + second.bytes);
  });

  it('stores nothing for a refused bundle: the list, the storage and the name stay as they were', async () => {
    const org = await server.newOrganization('starter');
    await published(uniqueName(), '1.0.0', org.apiKey);
    const before = { list: await listed(org.apiKey), bytes: await storage(org.apiKey) };
    const name = uniqueName();
    const refused = [
      // manifest.json missing
      await zipOf([{ name: 'index.html', content: '<p>no manifest</p>' }]),
      // the entry it names is missing
      await zipOf([{ name: 'manifest.json', content: manifestJson({ name, entry: 'main.html' }) }, { name: 'index.html', content: '<p>x</p>' }]),
      // an entry that climbs out of the package
      rawZipOf([{ name: 'manifest.json', content: manifestJson({ name }) }, { name: 'index.html', content: 'x' }, { name: '../../evil.js', content: 'x' }]),
      Buffer.from('not a zip at all'),
    ];
    for (const zip of refused) {
      const answer = await publish(zip, { apiKey: org.apiKey });
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    }
    expect(await listed(org.apiKey)).toEqual(before.list);
    expect(await storage(org.apiKey)).toBe(before.bytes);
    // The name was not taken by the refused uploads: another organization may publish it.
    const other = await server.newOrganization();
    await published(name, '1.0.0', other.apiKey);
  });

  it('refuses with 402 a version that does not fit storage_component, storing nothing', async () => {
    const org = await server.newOrganization('starter');
    const limit = PLAN_LIMITS.starter.storage_component;
    const filler = uniqueName('filler');
    await storeVersionOfBytes(org.organizationId, filler, limit - 100);
    expect(await storage(org.apiKey)).toBe(limit - 100);

    const name = uniqueName();
    const { zip, bytes } = await componentZip(name, '1.0.0');
    expect(bytes).toBeGreaterThan(100);
    const refused = await publish(zip, { apiKey: org.apiKey });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ statusCode: 402, error: 'Payment Required', quotaType: 'storage_component', current: limit - 100, limit });
    expect((await listed(org.apiKey)).map((component) => component.name)).toEqual([filler]);
    expect(await storage(org.apiKey)).toBe(limit - 100);
    expect((await fileOf(name, '1.0.0')).status).toBe(404);

    // Room made, the same bundle fits.
    expect((await server.api('DELETE', `/components/${filler}/1.0.0`, undefined, { 'x-api-key': org.apiKey })).status).toBe(204);
    expect((await publish(zip, { apiKey: org.apiKey })).status).toBe(200);
    expect(await storage(org.apiKey)).toBe(bytes);
  });
});

describe('concurrency', () => {
  it('never fails a publish racing the deletion of the only other version holding one of its files', async () => {
    const other = await server.newOrganization();
    const failures: string[] = [];
    for (let round = 0; round < 30; round += 1) {
      const shared = { name: 'shared.js', content: `/* ${randomUUID()} */` };
      const deleted = uniqueName();
      const first = await zipOf([{ name: 'manifest.json', content: manifestJson({ name: deleted }) }, { name: 'index.html', content: 'a' }, shared]);
      expect((await publish(first)).status).toBe(200);
      // The shared file first, then many more: the publish spends a while between storing it and its version.
      const many = Array.from({ length: 40 }, (_, index) => ({ name: `f${index}.js`, content: `${round}-${index}` }));
      const racing = await zipOf([shared, { name: 'manifest.json', content: manifestJson({ name: uniqueName() }) }, { name: 'index.html', content: 'b' }, ...many]);
      // The deletion starts a little later each round, to sweep the publish's window.
      const removal = new Promise((resolve) => setTimeout(resolve, round)).then(() => server.api('DELETE', `/components/${deleted}/1.0.0`));
      const [removed, publication] = await Promise.all([removal, publish(racing, { apiKey: other.apiKey })]);
      expect(removed.status).toBe(204);
      if (publication.status !== 200) failures.push(`round ${round}: ${publication.status} ${JSON.stringify(publication.body)}`);
    }
    expect(failures).toEqual([]);
  });
});

/**
 * Writes a version row counting `bytes` straight into the database: filling 50 MB of
 * storage through uploads would take a dozen ten-megabyte requests.
 */
async function storeVersionOfBytes(organizationId: string, name: string, bytes: number): Promise<void> {
  const database = await openDatabase(server.database.url);
  const now = new Date();
  try {
    await database.prisma.component.create({
      data: {
        id: randomUUID(),
        organizationId,
        name,
        createdAt: now,
        versions: {
          create: { id: randomUUID(), version: '1.0.0', manifest: manifestJson({ name }), entry: 'index.html', totalBytes: bytes, publishedAt: now },
        },
      },
    });
  } finally {
    await database.close();
  }
}
