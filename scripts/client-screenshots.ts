// Makes the documentation's screenshots of the browser client: a lesson board seen by its teacher
// (every zone) and by one student on a phone (its own zone; a classmate's hidden zone absent).
// Run: npx tsx scripts/client-screenshots.ts   (writes docs/client-host.png, docs/client-student.png)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { buildClient } from '../client/build.mjs';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const KEY = 'wb_screenshots_0123456789abcdef';

async function main(): Promise<void> {
  await buildClient({ quiet: true });
  const dir = mkdtempSync(join(tmpdir(), 'wb-shots-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `file:${join(dir, 'wb.db')}`, BOOTSTRAP_API_KEY: KEY, BOOTSTRAP_PLAN: 'enterprise', LOG_LEVEL: 'warn' });
  const app = await startApp({ config });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const { hostLink, studentLink } = await lessonBoard(app.url);
    await shoot(browser, hostLink, { width: 1280, height: 800 }, 'docs/client-host.png');
    await shoot(browser, studentLink, { width: 390, height: 760 }, 'docs/client-student.png');
  } finally {
    await browser.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}/api/v1${path}`, { method, headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A fractions lesson: a task, three student zones (one hidden), answers in them. */
async function lessonBoard(url: string): Promise<{ hostLink: string; studentLink: string }> {
  const board = await call(url, 'POST', '/boards', {
    title: 'Fractions — Year 5',
    initial_objects: [
      { type: 'sticky', data: { text: 'Task: what is 1/2 + 1/4? Show how you found it.' }, position: { x: 40, y: 20 } },
      { type: 'shape', data: { shape: 'ellipse', text: 'Halves' }, position: { x: 300, y: 40 } },
      { type: 'shape', data: { shape: 'rect', text: 'Quarters' }, position: { x: 520, y: 40 } },
    ],
  });
  const id = board.board_uuid as string;
  const students = [
    { user_id: 'ana', name: 'Ana', x: 0, visibility: 'visible', answer: '1/2 = 2/4, so 2/4 + 1/4 = 3/4' },
    { user_id: 'ben', name: 'Ben', x: 480, visibility: 'hidden', answer: '3/4 (I drew a pizza)' },
    { user_id: 'chloe', name: 'Chloé', x: 960, visibility: 'visible', answer: '2/6?' },
  ];
  for (const student of students) {
    await call(url, 'POST', `/boards/${id}/frames`, {
      name: student.name, bounds_x: student.x, bounds_y: 240, bounds_width: 440, bounds_height: 360, assigned_user_id: student.user_id, zone_visibility: student.visibility,
    });
    await call(url, 'POST', `/boards/${id}/objects`, { type: 'sticky', data: { text: student.answer, color: '#bbf7d0' }, position: { x: student.x + 30, y: 290 } });
  }
  const wave = Array.from({ length: 40 }, (_, i) => [i * 6, 40 + Math.sin(i / 4) * 30, 0.5]).flat();
  await call(url, 'POST', `/boards/${id}/objects`, { type: 'ink', data: { points: wave, color: '#2563eb', size: 6 }, position: { x: 40, y: 460 }, width: 250, height: 120 });
  const ana = await call(url, 'POST', `/boards/${id}/participant-links`, { user_id: 'ana', user_name: 'Ana' });
  return { hostLink: board.access_links.host as string, studentLink: ana.link as string };
}

async function shoot(browser: Browser, link: string, viewport: { width: number; height: number }, path: string): Promise<void> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.goto(link);
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && document.querySelector('#sync-status')?.getAttribute('data-state') === 'saved');
  await page.waitForTimeout(300);
  await page.screenshot({ path });
  await context.close();
  console.log(`wrote ${path}`);
}

await main();
