import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_PATH, SCREENSHOT_DIR } from '../helpers/browser.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { loadDocument, operationsOf } from './openApiTestKit.js';

/** `/docs`: Swagger UI from the installed swagger-ui-dist package, pointed at /api/v1/openapi.json, nothing from elsewhere. */
const { server } = serverForSuite();
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const CONTENT_TYPES: Record<string, RegExp> = { css: /^text\/css/, js: /^(text|application)\/javascript/, png: /^image\/png/ };

async function get(path: string) {
  const response = await fetch(`${server.url}${path}`);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('the docs page', () => {
  it('loads only files of its own origin, served from swagger-ui-dist', async () => {
    const page = await get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = page.headers.get('content-security-policy')!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self';");
    const references = [...page.bytes.toString('utf8').matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url!);
    expect(references.length).toBeGreaterThanOrEqual(4);
    expect(references.filter((url) => !url.startsWith('/docs/'))).toEqual([]);
    for (const url of references) {
      const asset = await get(url);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('content-type'), url).toMatch(CONTENT_TYPES[url.split('.').pop()!]!);
      const file = url.slice('/docs/'.length);
      if (file !== 'docs.js') expect(asset.bytes.equals(readFileSync(join(SWAGGER_UI_DIR, file))), url).toBe(true);
    }
    const start = (await get('/docs/docs.js')).bytes.toString('utf8');
    expect(start).toContain('"/api/v1/openapi.json"');
    expect(start).toContain('validatorUrl: null');
  });

  it("serves nothing else of the package (its own index.html points at a demo API)", async () => {
    for (const path of ['/docs/index.html', '/docs/swagger-initializer.js', '/docs/package.json', '/docs/swagger-ui-bundle.js.map']) {
      expect((await get(path)).status, path).toBe(404);
    }
  });

  it('serves the document with a JSON type, to any origin', async () => {
    const answer = await get('/api/v1/openapi.json');
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(JSON.parse(answer.bytes.toString('utf8'))).toEqual(loadDocument());
  });

  it('renders every operation in Chromium without reaching another origin or breaking its policy', { timeout: 60_000 }, async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const requested: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${server.url}/docs`);
      const operations = operationsOf(loadDocument()).size;
      await page.waitForFunction((count) => document.querySelectorAll('.opblock').length === count, operations, { timeout: 20_000 });
      // An opened operation renders its parameters, body schema and responses.
      await page.locator('.opblock-summary-control').first().click();
      await page.waitForSelector('.opblock-body .responses-table', { timeout: 10_000 });
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'openapi-docs.png') });
      expect(requested.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
      expect(requested).toContain(`${server.url}/api/v1/openapi.json`);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
