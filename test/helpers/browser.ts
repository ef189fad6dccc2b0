import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** An object as `window.whiteboard.objects()` lists it (client contract). */
export interface ShownObject {
  id: string;
  type: string;
  text: string | null;
  document: string;
}

/** The visible area, in board coordinates. */
export interface Viewport {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/** The read-only hooks the board page exposes for tests and integrators (client contract). */
interface WhiteboardHooks {
  viewport(): Viewport;
  status(): 'local' | 'syncing' | 'saved';
  connection(): string;
  objects(): ShownObject[];
  role(): 'host' | 'guest';
  serviceWorkerReady(): Promise<boolean>;
  flushed(): Promise<void>;
  components(): ComponentsStatus;
}

/** What `window.whiteboard.components()` answers (client/src/components/componentLayer.ts). */
export interface ComponentsStatus {
  /** Messages on the page's window that came from no component frame. */
  ignored: number;
  frames: { id: string; url: string; state: string; counters: Record<'accepted' | 'malformed' | 'oversize' | 'rateLimited' | 'ignored' | 'loads', number> | null }[];
}

declare global {
  interface Window {
    whiteboard: WhiteboardHooks;
  }
}

export const CHROMIUM_PATH = '/usr/bin/chromium';
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const CLIENT_PAGE = fileURLToPath(new URL('../../dist/client/board.html', import.meta.url));
/** Where screenshots go (a failing test's pages are saved there too). */
export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'whiteboard-client-screenshots');
/** Long enough for a cold page load on a busy machine, short enough to fail inside vitest's test timeout. */
const WAIT_MS = 15_000;

/** One participant: a browser context of its own (its own IndexedDB and service worker) and its page. */
export interface Participant {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors, printed when a test fails. */
  errors: string[];
}

/** How a participant's browser context is made (a desktop window unless told otherwise). */
export interface OpenOptions {
  /** Wait until the board is shown (default true). */
  waitForReady?: boolean;
  /** The window size in CSS pixels (default 1280×800). */
  viewport?: { width: number; height: number };
  /** A touch screen (taps send touch pointer events), as on a phone. */
  touch?: boolean;
}

export interface BrowserSuite {
  /** Opens an access link in a new context and waits until the board is shown. */
  open(link: string, options?: OpenOptions): Promise<Participant>;
}

/**
 * Launches Chromium once for a test file (`beforeAll`), closes each test's contexts after it
 * (saving screenshots of its pages first when it failed) and the browser after the file.
 */
export function browserForSuite(): BrowserSuite {
  let browser: Browser | undefined;
  let participants: Participant[] = [];
  beforeAll(async () => {
    if (!existsSync(CLIENT_PAGE)) throw new Error(`the browser client is not built (${CLIENT_PAGE}): run \`node client/build.mjs\``);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS });
  });
  afterEach(async (context) => {
    const open = participants;
    participants = [];
    if (context.task.result?.state === 'fail') await saveFailure(context.task.name, open);
    await Promise.all(open.map((participant) => participant.context.close().catch(() => undefined)));
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async open(link, { waitForReady: wait = true, viewport = { width: 1280, height: 800 }, touch = false } = {}) {
      if (!browser) throw new Error('the browser is used before beforeAll launched it');
      const context = await browser.newContext({ viewport, hasTouch: touch, isMobile: touch });
      context.setDefaultTimeout(WAIT_MS);
      const page = await context.newPage();
      const participant: Participant = { context, page, errors: [] };
      participants.push(participant);
      page.on('pageerror', (error) => participant.errors.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') participant.errors.push(`console: ${message.text()}`);
      });
      // A confirmation ("End the session?") is answered yes, as the person clicking meant it.
      page.on('dialog', (dialog) => void dialog.accept().catch(() => undefined));
      await page.goto(link);
      if (wait) await waitForReady(page);
      return participant;
    },
  };
}

async function saveFailure(testName: string, participants: Participant[]): Promise<void> {
  const slug = testName.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
  for (const [index, participant] of participants.entries()) {
    const path = await screenshot(participant.page, `FAILED-${slug}-${index}`).catch(() => null);
    console.error(`[browser] participant ${index}: ${path ?? 'no screenshot'}\n  ${participant.errors.join('\n  ') || 'no page errors'}`);
  }
}

/** Saves a full-page screenshot under SCREENSHOT_DIR; answers its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Waits until the page says the board is shown (from its local copy or the server). */
export async function waitForReady(page: Page): Promise<void> {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && typeof window.whiteboard === 'object');
}

export const objectsOf = (page: Page): Promise<ShownObject[]> => page.evaluate(() => window.whiteboard.objects());
export const viewportOf = (page: Page): Promise<Viewport> => page.evaluate(() => window.whiteboard.viewport());
export const statusOf = (page: Page): Promise<string> => page.evaluate(() => window.whiteboard.status());
export const connectionOf = (page: Page): Promise<string> => page.evaluate(() => window.whiteboard.connection());
export const roleOf = (page: Page): Promise<string> => page.evaluate(() => window.whiteboard.role());

/** Waits until `window.whiteboard.objects()` shows an object whose text contains `text`; answers it. */
export async function waitForObjectText(page: Page, text: string): Promise<ShownObject> {
  const handle = await page.waitForFunction((wanted) => window.whiteboard.objects().find((o) => o.text?.includes(wanted)), text);
  return (await handle.jsonValue()) as ShownObject;
}

/** Waits until some `.object-text` in the scene shows `text` (the DOM, not just the model). */
export async function waitForSceneText(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (wanted) => Array.from(document.querySelectorAll('#scene g.object .object-text')).some((element) => element.textContent?.includes(wanted)),
    text,
  );
}

/** Whether the scene's DOM holds `text` anywhere (labels, object text, frame names). */
export const sceneHasText = (page: Page, text: string): Promise<boolean> =>
  page.evaluate((wanted) => (document.querySelector('#scene')?.textContent ?? '').includes(wanted), text);

/** The screen point (page pixels) of a board point, from the viewport and the #scene box. */
export async function toScreen(page: Page, point: Point): Promise<Point> {
  const box = await page.locator('svg#scene').boundingBox();
  if (!box) throw new Error('svg#scene is not laid out');
  const view = await viewportOf(page);
  return { x: box.x + ((point.x - view.x) * box.width) / view.width, y: box.y + ((point.y - view.y) * box.height) / view.height };
}

/** A board point a share of the way across and down what the page shows. */
export async function pointAt(page: Page, share: Point): Promise<Point> {
  const view = await viewportOf(page);
  return { x: Math.round(view.x + view.width * share.x), y: Math.round(view.y + view.height * share.y) };
}

/** Board units as screen pixels on this page (the scene's scale). */
export async function pixelsPerUnit(page: Page): Promise<number> {
  const scene = await page.locator('svg#scene').boundingBox();
  if (!scene) throw new Error('svg#scene is not laid out');
  return scene.width / (await viewportOf(page)).width;
}

/** Clicks a board point; fails when it is not in the visible area (the click would miss). */
export async function clickAt(page: Page, point: Point): Promise<void> {
  await expectVisible(page, point);
  const at = await toScreen(page, point);
  await page.mouse.click(at.x, at.y);
}

async function expectVisible(page: Page, point: Point): Promise<void> {
  const view = await viewportOf(page);
  const inside = point.x >= view.x && point.x <= view.x + view.width && point.y >= view.y && point.y <= view.y + view.height;
  if (!inside) throw new Error(`board point ${JSON.stringify(point)} is outside the viewport ${JSON.stringify(view)}`);
}

/** Drags the mouse through board points (pen strokes, moves), in small steps like a hand would. */
export async function dragThrough(page: Page, points: Point[]): Promise<void> {
  const [first, ...rest] = points;
  if (!first) return;
  for (const point of points) await expectVisible(page, point);
  const start = await toScreen(page, first);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  for (const point of rest) {
    const at = await toScreen(page, point);
    await page.mouse.move(at.x, at.y, { steps: 5 });
  }
  await page.mouse.up();
}

/** Drags by a screen offset from the middle of the scene (panning with the hand tool). */
export async function dragScreenBy(page: Page, dx: number, dy: number): Promise<void> {
  const box = await page.locator('svg#scene').boundingBox();
  if (!box) throw new Error('svg#scene is not laid out');
  const start = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + dx, start.y + dy, { steps: 10 });
  await page.mouse.up();
}

export type Tool = 'select' | 'hand' | 'sticky' | 'rect' | 'ellipse' | 'text' | 'pen';

export async function chooseTool(page: Page, tool: Tool): Promise<void> {
  await page.locator(`nav#toolbar button[data-tool="${tool}"]`).click();
}

/**
 * Creates a sticky (or rect, ellipse, text) at a board point through the UI: choose the tool,
 * click, type into the text editor, Escape commits. Answers the object once the page shows it.
 */
export async function createTextObject(page: Page, point: Point, text: string, tool: Tool = 'sticky'): Promise<ShownObject> {
  await chooseTool(page, tool);
  await clickAt(page, point);
  const editor = page.locator('textarea#text-editor');
  await editor.waitFor({ state: 'visible' });
  await editor.fill(text);
  await editor.press('Escape');
  await editor.waitFor({ state: 'hidden' });
  return waitForObjectText(page, text);
}

/** Waits two animation frames, so whatever the last input caused has been applied and drawn. */
export async function nextFrames(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/** Whether an element is shown: present, not `hidden`, and laid out. */
export const isShown = (page: Page, selector: string): Promise<boolean> => page.locator(selector).isVisible();

/**
 * Shows the host's frames panel: on a narrow screen the side panel is folded behind
 * #people-toggle, so it is unfolded first when the panel is not visible.
 */
export async function openFramesPanel(page: Page): Promise<void> {
  const panel = page.locator('#frames-panel');
  await panel.waitFor({ state: 'attached' });
  if (!(await panel.isVisible()) && (await page.locator('#people-toggle').getAttribute('aria-expanded')) !== 'true') {
    await page.locator('#people-toggle').click();
  }
  await panel.waitFor({ state: 'visible' });
}

/** The screen point (page pixels) at the middle of an object as the scene draws it. */
export async function objectCentre(page: Page, objectId: string): Promise<Point> {
  const box = await page.locator(`#scene g.object[data-object-id="${objectId}"] .body, #scene g.object[data-object-id="${objectId}"] .hit`).first().boundingBox();
  if (!box) throw new Error(`object ${objectId} is not drawn`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Drags the mouse between two screen points in small steps (a hand, not a jump). */
export async function dragScreen(page: Page, from: Point, to: Point): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await page.mouse.up();
}

/** The names of the IndexedDB databases the page's origin holds now. */
export const databaseNames = (page: Page): Promise<string[]> =>
  page.evaluate(async () => (await indexedDB.databases()).map((database) => database.name ?? ''));
