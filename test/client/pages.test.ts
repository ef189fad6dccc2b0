import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { createBoard, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { request } from '../helpers/testServer.js';

/** The budget for the board page's scripts, gzipped. */
const GZIPPED_JS_BUDGET = 250 * 1024;

/** The `src`/`href` of the page's scripts and style sheets (module preloads count as scripts). */
function assetsOf(html: string): { scripts: string[]; styles: string[] } {
  const attribute = (tag: string, name: string) => new RegExp(`\\b${name}\\s*=\\s*["']([^"']+)["']`, 'i').exec(tag)?.[1];
  const tags = html.match(/<(script|link)\b[^>]*>/gi) ?? [];
  const scripts: string[] = [];
  const styles: string[] = [];
  for (const tag of tags) {
    const rel = attribute(tag, 'rel')?.toLowerCase();
    if (/^<script/i.test(tag)) {
      const src = attribute(tag, 'src');
      if (src) scripts.push(src);
    } else if (rel === 'modulepreload') {
      scripts.push(attribute(tag, 'href')!);
    } else if (rel === 'stylesheet') {
      styles.push(attribute(tag, 'href')!);
    }
  }
  return { scripts, styles };
}

/**
 * The page over plain HTTP: the board page and its assets are served with the
 * headers that keep the token private and the build cacheable, the page stays within its
 * script budget, and `/me` tells the page who its link makes the caller.
 */
describe('browser client: pages over HTTP', () => {
  const { server } = serverForSuite();
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

  async function boardPage() {
    const board = await createBoard(server, 'Pages');
    const response = await fetch(board.access_links.host);
    return { board, response, html: await response.text() };
  }

  it('serves the board page as HTML with its security and caching headers', async () => {
    const { response, html } = await boardPage();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toMatch(/script-src 'self'(;|$)/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(html).toMatch(/<html/i);
  });

  it('serves the page for any board id: the page reads the board from its own address', async () => {
    const response = await get(`/boards/${randomUUID()}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('serves the hashed script and style the page names, cached for a year as immutable', async () => {
    const { html } = await boardPage();
    const { scripts, styles } = assetsOf(html);
    expect(scripts.length).toBeGreaterThan(0);
    expect(styles.length).toBeGreaterThan(0);
    for (const [path, type] of [...scripts.map((p) => [p, /javascript/] as const), ...styles.map((p) => [p, /^text\/css/] as const)]) {
      // A content hash in the name is what lets the asset be cached for a year.
      expect(path).toMatch(/^\/app\/assets\/[^/]*[-.][A-Za-z0-9]{8,}\.(js|css)$/);
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toMatch(type);
      const caching = response.headers.get('cache-control') ?? '';
      expect(caching, path).toContain('immutable');
      expect(caching, path).toContain('max-age=31536000');
    }
  });

  it('serves the service worker as JavaScript', async () => {
    const response = await get('/sw.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect((await response.text()).length).toBeGreaterThan(0);
  });

  it('answers a board address that is no board id with the JSON 404', async () => {
    const response = await request(server.url, 'GET', '/boards/not-a-uuid');
    expectErrorBody(response, { statusCode: 404, error: 'Not Found', path: '/boards/not-a-uuid' });
  });

  it('answers an asset that was never built with a 404', async () => {
    const response = await request(server.url, 'GET', '/app/assets/board-NOTBUILT.js');
    expect(response.status).toBe(404);
  });

  it('keeps the gzipped JavaScript of the board page within 250 KB', async () => {
    const { html } = await boardPage();
    let total = 0;
    for (const path of assetsOf(html).scripts) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      total += gzipSync(Buffer.from(await response.arrayBuffer())).length;
    }
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(GZIPPED_JS_BUDGET);
  });

  describe('GET /boards/<id>/me', () => {
    const me = (boardId: string, token: string, query = '') =>
      request(server.url, 'GET', `/api/v1/boards/${boardId}/me${query}`, undefined, { authorization: `Bearer ${token}` });

    it('answers role host for the host link and guest for the guest link', async () => {
      const board = await createBoard(server, 'Me');
      const host = await me(board.board_uuid, tokenOf(board.access_links.host));
      expect(host.status).toBe(200);
      expect(host.body).toMatchObject({ board_uuid: board.board_uuid, role: 'host' });
      const guest = await me(board.board_uuid, tokenOf(board.access_links.guest));
      expect(guest.status).toBe(200);
      expect(guest.body).toMatchObject({ board_uuid: board.board_uuid, role: 'guest' });
    });

    it('accepts the token as the page has it, in the query', async () => {
      const board = await createBoard(server, 'Me query');
      const guest = await request(server.url, 'GET', `/api/v1/boards/${board.board_uuid}/me?token=${tokenOf(board.access_links.guest)}`);
      expect(guest.status).toBe(200);
      expect(guest.body.role).toBe('guest');
    });

    it("answers a personal link's user id and name", async () => {
      const board = await createBoard(server, 'Me personal');
      const link = await server.personalLink(board.board_uuid, 'student-42', { user_name: 'Ada Lovelace' });
      const answer = await me(board.board_uuid, link.token);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ role: 'guest', user_id: 'student-42', user_name: 'Ada Lovelace' });
    });

    it("refuses another board's token", async () => {
      const board = await createBoard(server, 'Me one');
      const other = await createBoard(server, 'Me other');
      const answer = await me(board.board_uuid, tokenOf(other.access_links.guest));
      expect([401, 403, 404]).toContain(answer.status);
    });
  });
});
