import { describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { publishComponent, uniqueComponentName } from '../helpers/components.js';
import { serverForSuite } from '../helpers/fixtures.js';

/**
 * Egress rules (`WEBHOOK_ALLOW_PRIVATE`, docs/security.md): a board's data provider URL and its components' URLs
 * are fetched by the service or by browsers, so in production they pass the same egress
 * rules as webhook URLs (https, public hosts only); 400 names the field.
 */

const PATH = '/api/v1/boards';
const PUBLIC_PROVIDER = 'https://api.example.com/courses/:courseId/students/:id?term=:term';
const PUBLIC_COMPONENT = 'https://cdn.example.com/quiz/index.html';

const REFUSED_URLS: Array<[string, string]> = [
  ['a loopback address', 'https://127.0.0.1/data'],
  ['plain http to a loopback address', 'http://127.0.0.1:8080/data'],
  ['localhost', 'https://localhost/data'],
  ['a private address', 'https://10.1.2.3/data'],
  ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data'],
  ['an IPv6 loopback address', 'https://[::1]/data'],
  ['plain http to a public host', 'http://api.example.com/data'],
  ['credentials in the URL', 'https://user:secret@api.example.com/data'],
];

const withProvider = (url: string) => ({ title: 'Provider', data_provider: { type: 'webhook', webhook_url: url, method: 'GET' } });
const withComponents = (...urls: string[]) => ({ title: 'Components', config: { components: urls.map((url) => ({ type: 'quiz', url })) } });

describe('in production (WEBHOOK_ALLOW_PRIVATE=false)', () => {
  const { server } = serverForSuite({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });

  const boardCount = async () => (await server.api('GET', '/boards')).body.length as number;

  it.each(REFUSED_URLS)('POST /boards refuses a data provider URL with %s, naming data_provider.webhook_url', async (_case, url) => {
    const before = await boardCount();
    expectErrorBody(await server.api('POST', '/boards', withProvider(url)), { statusCode: 400, error: 'Bad Request', path: PATH, field: 'data_provider.webhook_url' });
    expect(await boardCount()).toBe(before);
  });

  it.each([
    ['a placeholder in the host', 'https://:tenant.example.com/data'],
    ['a placeholder standing for a private host', 'https://api.:zone.internal/data'],
    ['a placeholder as the host of a URL without slashes', 'https::host/data'],
    ['a placeholder in a loopback URL’s path', 'http://127.0.0.1/users/:id'],
  ])('POST /boards refuses a data provider URL with %s', async (_case, url) => {
    expectErrorBody(await server.api('POST', '/boards', withProvider(url)), { statusCode: 400, error: 'Bad Request', path: PATH, field: 'data_provider.webhook_url' });
  });

  it.each(REFUSED_URLS)('POST /boards refuses a component URL with %s, naming config.components.<index>.url', async (_case, url) => {
    const before = await boardCount();
    expectErrorBody(await server.api('POST', '/boards', withComponents(PUBLIC_COMPONENT, url)), { statusCode: 400, error: 'Bad Request', path: PATH, field: 'config.components.1.url' });
    expect(await boardCount()).toBe(before);
  });

  it.each([
    ['protocol-relative', '//127.0.0.1/quiz'],
    ['with a scheme and no slashes', 'http:127.0.0.1/quiz'],
    ['with an upper-case scheme', 'HTTPS://192.168.0.10/quiz'],
  ])('POST /boards refuses a component URL written %s that a browser resolves to a private host', async (_case, url) => {
    expectErrorBody(await server.api('POST', '/boards', withComponents(url)), { statusCode: 400, error: 'Bad Request', path: PATH, field: 'config.components.0.url' });
  });

  it('POST /boards creates a board (201) with a public https provider URL holding placeholders, public https components and component names', async () => {
    // A path of this registry must name a published version (test/components/boardPins.test.ts).
    const quiz = uniqueComponentName('quiz');
    await publishComponent(server, quiz, '1.0.0');
    const components = [PUBLIC_COMPONENT, `/components/files/${quiz}@1.0.0/index.html`, 'component://quiz@1.0.0', 'quiz@latest'];
    const created = await server.api('POST', '/boards', { ...withProvider(PUBLIC_PROVIDER), config: withComponents(...components).config });
    expect(created.status).toBe(201);
    const read = await server.api('GET', `/boards/${created.body.board_uuid}`);
    expect(read.body.data_provider).toEqual({ type: 'webhook', webhook_url: PUBLIC_PROVIDER, method: 'GET' });
    expect(read.body.config.components.map((component: { url: string }) => component.url)).toEqual(components);
  });

  it('PATCH /boards/:id refuses private component URLs (400, config.components.<index>.url) and keeps the config', async () => {
    const created = await server.api('POST', '/boards', withComponents(PUBLIC_COMPONENT));
    expect(created.status).toBe(201);
    const path = `/boards/${created.body.board_uuid}`;
    for (const [, url] of REFUSED_URLS) {
      expectErrorBody(await server.api('PATCH', path, withComponents(url)), { statusCode: 400, error: 'Bad Request', path: `/api/v1${path}`, field: 'config.components.0.url' });
    }
    expect((await server.api('GET', path)).body.config.components).toEqual([{ type: 'quiz', url: PUBLIC_COMPONENT }]);
    const patched = await server.api('PATCH', path, withComponents('https://cdn.example.org/quiz'));
    expect(patched.status).toBe(200);
    expect(patched.body.config.components).toEqual([{ type: 'quiz', url: 'https://cdn.example.org/quiz' }]);
  });
});

describe('in development (private targets allowed, the default outside production)', () => {
  const { server } = serverForSuite();

  it('POST /boards accepts loopback provider and component URLs over plain http', async () => {
    const created = await server.api('POST', '/boards', { ...withProvider('http://127.0.0.1:4000/users/:id'), config: withComponents('http://localhost:5173/quiz').config });
    expect(created.status).toBe(201);
  });

  it.each([
    ['no http(s) URL', 'ftp://files.example.com/data'],
    ['a placeholder as its host', 'http::host/data'],
  ])('POST /boards still refuses a provider URL with %s', async (_case, url) => {
    expectErrorBody(await server.api('POST', '/boards', withProvider(url)), { statusCode: 400, error: 'Bad Request', path: PATH, field: 'data_provider.webhook_url' });
  });
});
