import { randomUUID } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameSource } from '../../client/src/components/componentView.js';
import { parseComponentMessage } from '../../client/src/components/protocol.js';
import { browserForSuite, objectCentre, screenshot, waitForReady, type ComponentsStatus } from '../helpers/browser.js';
import { publishComponent, uniqueComponentName } from '../helpers/components.js';
import { createBoard, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { eventually, startTestServer, type TestServer } from '../helpers/testServer.js';

/** The picture of a component in docs/components.md: written again only when asked (`UPDATE_SCREENSHOTS=1`), so a test run leaves the tree clean. */
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/client-component.png', import.meta.url));

/**
 * A component that shows its `label` prop, and tries everything a component must not reach
 * (the host's cookies and storage, its own origin's storage, the parent's document, the top's
 * address, the API with credentials), writing each outcome into its own page. It also sends
 * the host malformed and oversized messages, and a request over the window instead of the port.
 */
const PROBE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Probe</title>
<style>
  body { margin: 0; padding: 12px 14px; font: 13px/1.4 system-ui, sans-serif; background: #eff6ff; color: #1e3a8a; }
  h1 { margin: 0 0 4px; font-size: 24px; }
  ul { margin: 6px 0; padding-left: 18px; font-family: ui-monospace, monospace; font-size: 11.5px; }
  li[data-outcome="blocked"] { color: #15803d; } li[data-outcome="allowed"] { color: #b91c1c; font-weight: bold; }
  button { font: inherit; margin-right: 6px; }
</style></head>
<body>
<h1 id="label">(no bridge yet)</h1>
<div id="role"></div>
<ul id="checks"></ul>
<button id="set-props" type="button">Set label from the component</button><button id="flood" type="button">Flood</button>
<div id="responses"></div>
<script>
(function () {
  function show(name, outcome, detail) {
    var item = document.getElementById('check-' + name);
    if (!item) { item = document.createElement('li'); item.id = 'check-' + name; document.getElementById('checks').appendChild(item); }
    item.dataset.outcome = outcome;
    item.textContent = name + ': ' + outcome + (detail ? ' (' + detail + ')' : '');
  }
  function probe(name, attempt) {
    try { show(name, 'allowed', String(attempt()).slice(0, 300)); } catch (error) { show(name, 'blocked', error.name); }
  }
  probe('document.cookie', function () { return document.cookie; });
  probe('localStorage', function () { return localStorage.getItem('wb_secret'); });
  probe('sessionStorage', function () { return sessionStorage.getItem('wb_secret'); });
  probe('parent.document', function () { return parent.document.cookie; });
  probe('top.location.href', function () { return top.location.href; });
  try {
    var opening = indexedDB.open('probe');
    opening.onsuccess = function () { show('indexedDB.open', 'allowed', 'opened'); };
    opening.onerror = function () { show('indexedDB.open', 'blocked', opening.error && opening.error.name); };
  } catch (error) { show('indexedDB.open', 'blocked', error.name); }
  try {
    fetch('/api/v1/boards', { credentials: 'include' }).then(
      function (response) { return response.text().then(function (text) { show('fetch', 'allowed', response.status + ' ' + text.slice(0, 300)); }); },
      function (error) { show('fetch', 'blocked', error.name); });
  } catch (error) { show('fetch', 'blocked', error.name); }

  var port = null;
  function render(props) { document.getElementById('label').textContent = String(props.label); }
  window.addEventListener('message', function (event) {
    // Only the parent's init is read; everything after it comes over the port.
    if (event.source !== window.parent || !event.data || event.data.type !== 'bridge:init') return;
    port = event.ports[0];
    document.body.dataset.inits = String(Number(document.body.dataset.inits || 0) + 1);
    document.getElementById('role').textContent = 'role: ' + event.data.role + ', object ' + event.data.object.id;
    render(event.data.props);
    port.onmessage = function (message) {
      var data = message.data;
      if (data.type === 'props.update') render(data.props);
      if (data.type === 'response') {
        var line = document.createElement('div');
        line.id = 'response-' + data.id;
        line.textContent = data.id + ': ' + (data.error ? 'error ' + data.error.message : 'ok');
        document.getElementById('responses').appendChild(line);
      }
    };
    port.postMessage({ type: 'props.set', id: 'bad-1', props: 'not an object' });
    port.postMessage({ type: 'no.such.method', id: 'bad-2' });
    port.postMessage({ type: 'props.set', id: 'bad-3', props: { label: 'BAD' }, extra: true });
    port.postMessage({ type: 'storage.set', id: 'big', key: 'k', value: new Array(2 * 1024 * 1024 + 1).join('x') });
    parent.postMessage({ type: 'props.set', id: 'forged-window', props: { label: 'FORGED-BY-WINDOW' } }, '*');
  });
  document.getElementById('set-props').addEventListener('click', function () {
    port.postMessage({ type: 'props.set', id: 'set-1', props: { label: 'Set by the component' } });
  });
  document.getElementById('flood').addEventListener('click', function () {
    for (var i = 0; i < 150; i++) port.postMessage({ type: 'flood', id: i });
  });
})();
</script>
</body></html>`;

/**
 * A component that uses every bridge method from buttons, and writes what comes back (responses,
 * storage updates, events) into its page.
 */
const BRIDGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bridge</title>
<style>body { margin: 0; padding: 8px; font: 12px system-ui, sans-serif; background: #f0fdf4; } button { font: inherit; } #log div { font-family: monospace; }</style></head>
<body>
<strong id="label"></strong>
<div><button id="data">data</button><button id="store">store</button><button id="action">action</button><button id="emit">emit</button><button id="props">props</button></div>
<div id="storage"></div>
<div id="log"></div>
<script>
(function () {
  var port = null;
  function log(id, text) { var line = document.getElementById(id) || document.createElement('div'); line.id = id; line.textContent = text; document.getElementById('log').appendChild(line); }
  function showStorage(storage) { document.getElementById('storage').textContent = 'count=' + JSON.stringify(storage.count === undefined ? null : storage.count); }
  var storage = {};
  window.addEventListener('message', function (event) {
    if (event.source !== window.parent || !event.data || event.data.type !== 'bridge:init') return;
    port = event.ports[0];
    document.getElementById('label').textContent = event.data.props.label + ' (' + event.data.role + ')';
    storage = event.data.storage; showStorage(storage);
    port.onmessage = function (message) {
      var data = message.data;
      if (data.type === 'response') log('response-' + data.id, data.id + ': ' + (data.error ? 'error ' + data.error.message : JSON.stringify(data.result)));
      if (data.type === 'storage.update') { storage[data.key] = data.value; showStorage(storage); }
      if (data.type === 'event') log('event-' + data.name, 'event ' + data.name + ' ' + JSON.stringify(data.payload) + ' from ' + data.object_id);
      if (data.type === 'props.update') document.getElementById('label').textContent = data.props.label;
    };
  });
  var send = {
    data: function () { port.postMessage({ type: 'data.request', id: 'data', params: { city: 'Oslo' } }); },
    store: function () { port.postMessage({ type: 'storage.set', id: 'store', key: 'count', value: 7 }); },
    action: function () { port.postMessage({ type: 'action', id: 'action', action_id: 'vote', action_label: 'Vote', action_metadata: { choice: 'b' } }); },
    emit: function () { port.postMessage({ type: 'event.emit', name: 'probe:ping', payload: { n: 1 } }); },
    props: function () { port.postMessage({ type: 'props.set', id: 'props', props: { label: 'changed' } }); },
  };
  Object.keys(send).forEach(function (name) { document.getElementById(name).addEventListener('click', send[name]); });
})();
</script></body></html>`;

const PROBE_MANIFEST = {
  title: 'Sandbox probe',
  props: { label: { type: 'string', default: 'Default label', ui: { label: 'Label' } } },
  dimensions: { width: 460, height: 330 },
};

const CHECKS = ['document.cookie', 'localStorage', 'sessionStorage', 'indexedDB.open', 'parent.document', 'top.location.href', 'fetch'];

const statusOf = (page: Page): Promise<ComponentsStatus> => page.evaluate(() => window.whiteboard.components());

/** The frame of a component object, once the page made it. */
async function componentFrame(page: Page, objectId: string): Promise<Frame> {
  const element = await page.waitForSelector(`.component-box[data-object-id="${objectId}"] iframe`);
  const frame = await element.contentFrame();
  if (!frame) throw new Error(`the frame of ${objectId} has no document`);
  return frame;
}

/**
 * Clicks an element of a component with the mouse, where the page shows it: the frame is
 * scaled with the board's zoom, which Playwright's own frame clicks do not account for.
 */
async function clickInFrame(page: Page, objectId: string, selector: string): Promise<void> {
  const iframe = page.locator(`.component-box[data-object-id="${objectId}"] iframe`);
  const frame = await componentFrame(page, objectId);
  const box = (await iframe.boundingBox())!;
  const scale = box.width / (await iframe.evaluate((element) => element.clientWidth));
  const target = await frame.evaluate((wanted) => {
    const rect = document.querySelector(wanted)!.getBoundingClientRect();
    return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
  }, selector);
  await page.mouse.click(box.x + target.x * scale, box.y + target.y * scale);
}

const labelShown = (frame: Frame, label: string) => frame.waitForFunction((wanted) => document.querySelector('#label')?.textContent === wanted, label);

describe('browser client: components run in sandboxed frames', () => {
  const { server } = serverForSuite();
  const browsers = browserForSuite();

  async function boardWithProbe(props: Record<string, unknown> = { label: 'First label' }) {
    const name = uniqueComponentName('probe');
    const { url } = await publishComponent(server, name, '1.0.0', { manifest: PROBE_MANIFEST, files: [{ name: 'index.html', content: PROBE_HTML }] });
    const board = await createBoard(server, 'Components');
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'external-component', data: { componentUrl: url, props }, position: { x: 100, y: 80 }, width: 460, height: 330 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { name, url, board, objectId: created.body.id as string };
  }

  const propsOf = async (boardId: string, objectId: string) => (await server.api('GET', `/boards/${boardId}/objects/${objectId}`)).body.data.props as Record<string, unknown>;

  it('frames a component in a sandbox: props flow both ways, nothing of the host is reachable, forged messages are ignored', async () => {
    const { url, board, objectId } = await boardWithProbe();
    const pageResponse = await fetch(board.access_links.host);
    expect(pageResponse.headers.get('content-security-policy')).toContain(`frame-src ${new URL(board.access_links.host).origin}`);

    const host = await browsers.open(board.access_links.host);
    const secret = `secret-${randomUUID()}`;
    await host.page.evaluate((value) => {
      document.cookie = `wb_secret=${value}; path=/`;
      localStorage.setItem('wb_secret', value);
      sessionStorage.setItem('wb_secret', value);
    }, secret);
    // Reopened, so the component loads while the host page holds the secrets.
    await host.page.reload();
    await waitForReady(host.page);

    const iframe = host.page.locator(`.component-box[data-object-id="${objectId}"] iframe`);
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts');
    expect(await iframe.getAttribute('referrerpolicy')).toBe('no-referrer');
    expect(await iframe.getAttribute('allow')).toBe('');
    expect(await iframe.getAttribute('src')).toBe(url);
    const frame = await componentFrame(host.page, objectId);
    await labelShown(frame, 'First label');
    expect(await frame.locator('#role').textContent()).toBe(`role: host, object ${objectId}`);

    // Every reach outside the sandbox failed, and nothing of the host's shows in the frame.
    await frame.waitForFunction((names) => names.every((name) => document.getElementById(`check-${name}`)), CHECKS);
    const outcomes = await frame.evaluate((names) => Object.fromEntries(names.map((name) => [name, document.getElementById(`check-${name}`)!.textContent])), CHECKS);
    for (const name of CHECKS) expect(outcomes[name], name).toMatch(new RegExp(`^${name.replace('.', '\\.')}: blocked`));
    const frameHtml = await frame.evaluate(() => document.documentElement.outerHTML + document.referrer + location.href);
    expect(frameHtml).not.toContain(secret);
    expect(frameHtml).not.toContain(tokenOf(board.access_links.host));

    // The host changes the props over REST: the frame shows them without reloading.
    const patched = await server.api('PATCH', `/boards/${board.board_uuid}/objects/${objectId}`, { data: { componentUrl: url, props: { label: 'Second label' } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    await labelShown(frame, 'Second label');

    // Selected, the component takes the pointer, and the host's props panel edits it.
    const centre = await objectCentre(host.page, objectId);
    await host.page.mouse.click(centre.x, centre.y);
    await host.page.locator(`.component-box.selected[data-object-id="${objectId}"]`).waitFor();
    const field = host.page.locator('#component-panel input[name="label"]');
    expect(await field.inputValue()).toBe('Second label');
    await field.fill('Third label');
    await field.press('Enter');
    await labelShown(frame, 'Third label');
    await eventually(async () => (await propsOf(board.board_uuid, objectId)).label === 'Third label');

    // The component asks the host to change its props over the bridge.
    await clickInFrame(host.page, objectId, '#set-props');
    await labelShown(frame, 'Set by the component');
    expect(await frame.locator('#response-set-1').textContent()).toBe('set-1: ok');
    await eventually(async () => (await propsOf(board.board_uuid, objectId)).label === 'Set by the component');

    // Malformed, oversized and window-borne messages were dropped and counted, never answered.
    let status = (await statusOf(host.page)).frames.find((entry) => entry.id === objectId)!;
    expect(status.state).toBe('loaded');
    expect(status.counters).toMatchObject({ malformed: 3, oversize: 1, ignored: 1, loads: 1 });
    for (const id of ['bad-1', 'bad-2', 'bad-3', 'big', 'forged-window']) expect(await frame.locator(`#response-${id}`).count(), id).toBe(0);
    await clickInFrame(host.page, objectId, '#flood');
    await host.page.waitForFunction((id) => window.whiteboard.components().frames.find((entry) => entry.id === id)!.counters!.rateLimited >= 50, objectId);

    // Another window (another origin) forges bridge messages to the host page: ignored.
    const ignoredBefore = (await statusOf(host.page)).ignored;
    const [popup] = await Promise.all([
      host.page.waitForEvent('popup'),
      // The page is on localhost, the service answers on 127.0.0.1 too: another origin.
      host.page.evaluate((address) => void window.open(address, 'forger'), `${server.url.replace('localhost', '127.0.0.1')}/health`),
    ]);
    await popup.waitForLoadState();
    await popup.evaluate(() => {
      window.opener.postMessage({ type: 'bridge:ready' }, '*');
      window.opener.postMessage({ type: 'props.set', id: 'forged-popup', props: { label: 'FORGED-BY-POPUP' } }, '*');
    });
    await host.page.waitForFunction((before) => window.whiteboard.components().ignored >= before + 2, ignoredBefore);
    await popup.close();
    status = (await statusOf(host.page)).frames.find((entry) => entry.id === objectId)!;
    expect(status.counters!.loads).toBe(1);
    expect(await frame.evaluate(() => document.body.dataset.inits)).toBe('1');
    expect(await frame.locator('#label').textContent()).toBe('Set by the component');
    expect((await propsOf(board.board_uuid, objectId)).label).toBe('Set by the component');

    await host.page.locator('#component-panel').scrollIntoViewIfNeeded();
    const taken = await screenshot(host.page, 'client-component');
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(taken, DOCS_SCREENSHOT);
  });

  it('loads a component only near the view, and shows a deleted version as an error box', async () => {
    const { name, url, board, objectId } = await boardWithProbe();
    const host = await browsers.open(board.access_links.host);
    await componentFrame(host.page, objectId);

    // A second component far outside the view stays a placeholder until the view reaches it.
    const far = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'external-component', data: { componentUrl: url, props: { label: 'Far away' } }, position: { x: 8000, y: 6000 }, width: 460, height: 330 });
    expect(far.status).toBe(201);
    const farId = far.body.id as string;
    await host.page.locator(`.component-box[data-object-id="${farId}"][data-state="waiting"]`).waitFor();
    expect(await host.page.locator(`.component-box[data-object-id="${farId}"] iframe`).count()).toBe(0);
    await host.page.keyboard.press('1');
    await labelShown(await componentFrame(host.page, farId), 'Far away');
    // Zoomed in on the first, the far one leaves the view and (keepAlive false) is unloaded.
    const centre = await objectCentre(host.page, objectId);
    for (let i = 0; i < 6; i++) {
      await host.page.mouse.move(centre.x, centre.y);
      await host.page.mouse.wheel(0, -400);
    }
    await host.page.keyboard.down('Control');
    for (let i = 0; i < 4; i++) await host.page.mouse.wheel(0, -300);
    await host.page.keyboard.up('Control');
    await host.page.locator(`.component-box[data-object-id="${farId}"][data-state="waiting"]`).waitFor();

    // Its author deletes the version: a page opened now shows why it cannot run.
    expect((await server.api('DELETE', `/components/${name}/1.0.0`)).status).toBe(204);
    const late = await browsers.open(board.access_links.guest);
    const box = late.page.locator(`.component-box[data-object-id="${objectId}"][data-state="deleted"]`);
    await box.waitFor();
    expect(await box.textContent()).toContain('This component version was deleted');
    expect(await late.page.locator('.component-box iframe').count()).toBe(0);
  });

  it('carries data, storage, actions and events between components, the server and every page', async () => {
    const name = uniqueComponentName('bridge');
    const manifest = {
      title: 'Bridge',
      props: { label: { type: 'string', default: 'Bridge' } },
      storage: { schema: { count: { type: 'number', default: 0 } } },
      globalEvents: { emit: ['probe:*'], listen: ['probe:*'] },
      dimensions: { width: 360, height: 220 },
    };
    const { url } = await publishComponent(server, name, '1.0.0', { manifest, files: [{ name: 'index.html', content: BRIDGE_HTML }] });
    const board = await createBoard(server, 'Bridge', { is_sandbox: true, mock_external_data: { forecast: 'sunny' } });
    const place = async (label: string, x: number) => {
      const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'external-component', data: { componentUrl: url, props: { label } }, position: { x, y: 60 }, width: 360, height: 220 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const sender = await place('Sender', 60);
    const listener = await place('Listener', 480);
    const host = await browsers.open(board.access_links.host);
    const guest = await browsers.open(board.access_links.guest);
    const hostSender = await componentFrame(host.page, sender);
    await hostSender.waitForFunction(() => document.querySelector('#label')?.textContent === 'Sender (host)');
    const select = async (page: Page, id: string) => {
      const centre = await objectCentre(page, id);
      await page.mouse.click(centre.x, centre.y);
      await page.locator(`.component-box.selected[data-object-id="${id}"]`).waitFor();
    };
    const lineOf = (frame: Frame, id: string) => frame.waitForFunction((wanted) => document.getElementById(wanted)?.textContent ?? '', id).then((handle) => handle.jsonValue());
    await select(host.page, sender);

    await clickInFrame(host.page, sender, '#data');
    expect(await lineOf(hostSender, 'response-data')).toContain('"data":{"forecast":"sunny"},"source":"mock"');

    // A shared value reaches every page's frame of that object through the document.
    await clickInFrame(host.page, sender, '#store');
    expect(await lineOf(hostSender, 'response-store')).toContain('"value":7');
    const guestSender = await componentFrame(guest.page, sender);
    for (const frame of [hostSender, guestSender]) await frame.waitForFunction(() => document.querySelector('#storage')?.textContent === 'count=7');

    await clickInFrame(host.page, sender, '#action');
    expect(await lineOf(hostSender, 'response-action')).toContain('"action_count":1');

    // An event goes over the socket to every listening component on every page.
    await clickInFrame(host.page, sender, '#emit');
    for (const frame of [await componentFrame(host.page, listener), await componentFrame(guest.page, listener)]) {
      expect(await lineOf(frame, 'event-probe:ping')).toBe(`event probe:ping {"n":1} from ${sender}`);
    }

    // A guest may not change the props (the manifest's default `permissions.props`).
    await select(guest.page, sender);
    await clickInFrame(guest.page, sender, '#props');
    expect(await lineOf(guestSender, 'response-props')).toBe("props: error A guest may not change this component's props");
    expect((await propsOf(board.board_uuid, sender)).label).toBe('Sender');
  });

  it('checks every bridge message by method, and frames only registry URLs of the components origin', () => {
    expect(parseComponentMessage({ type: 'props.set', id: 'a', props: { label: 'x' } })).toEqual({ ok: true, message: { type: 'props.set', id: 'a', props: { label: 'x' } } });
    expect(parseComponentMessage({ type: 'event.emit', name: 'timer:tick', payload: { n: 1 } }).ok).toBe(true);
    expect(parseComponentMessage({ type: 'data.request', id: 1, params: { city: 'Oslo', days: 3 } }).ok).toBe(true);
    expect(parseComponentMessage({ type: 'action', id: 2, action_id: 'vote', action_metadata: { choice: 'b' } }).ok).toBe(true);
    for (const bad of [
      null,
      'props.set',
      { type: 'props.set', props: {} },
      { type: 'props.set', id: {}, props: {} },
      { type: 'props.set', id: 'a', props: [] },
      { type: 'props.set', id: 'a', props: { when: new Date() } },
      { type: 'storage.set', id: 'a', key: '', value: 1 },
      { type: 'storage.set', id: 'a', key: 'k' },
      { type: 'data.request', id: 'a', params: { nested: { no: 1 } } },
      { type: 'event.emit', name: 'has space' },
      { type: 'event.emit', id: 'a', name: 'x' },
      { type: '__proto__', id: 'a' },
      { type: 'action', id: 'a' },
    ]) {
      expect(parseComponentMessage(bad), JSON.stringify(bad)).toEqual({ ok: false, refusal: 'malformed' });
    }
    expect(parseComponentMessage({ type: 'storage.set', id: 'a', key: 'k', value: 'x'.repeat(1024 * 1024) })).toEqual({ ok: false, refusal: 'oversize' });

    const components = 'https://components.example';
    const app = 'https://board.example';
    expect(frameSource(`${components}/components/files/poll@1.2.0/index.html`, components, app)).toEqual({ src: `${components}/components/files/poll@1.2.0/index.html`, reference: 'poll@1.2.0' });
    expect(frameSource(`${app}/components/files/poll@latest/index.html`, components, app)?.src).toBe(`${components}/components/files/poll@latest/index.html`);
    expect(frameSource('/api/v1/components/files/poll@1.2.0/a/b.html', components, app)?.src).toBe(`${components}/api/v1/components/files/poll@1.2.0/a/b.html`);
    for (const foreign of [
      'https://evil.example/components/files/poll@1.2.0/index.html',
      `${components}/boards/x`,
      `${components}/components/files/poll@1.2.0/../../../api/v1/boards`,
      'javascript:alert(1)',
      `https://user:pw@components.example/components/files/poll@1.2.0/index.html`,
      42,
    ]) {
      expect(frameSource(foreign, components, app), String(foreign)).toBeNull();
    }
  });
});

/** A port free now (the service then listens on it, so COMPONENTS_URL can name it before it starts). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('browser client: components from their own origin (COMPONENTS_URL)', () => {
  let server: TestServer;
  const browsers = browserForSuite();
  beforeAll(async () => {
    const port = await freePort();
    // The page is served as localhost, components as 127.0.0.1: two origins, one service.
    server = await startTestServer({ env: { PORT: String(port), APP_URL: `http://localhost:${port}`, COMPONENTS_URL: `http://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('frames the component from the components origin, which the page policy names', async () => {
    const componentsOrigin = new URL(server.url.replace('localhost', '127.0.0.1')).origin;
    const name = uniqueComponentName('probe');
    const { url } = await publishComponent(server, name, '1.0.0', { manifest: PROBE_MANIFEST, files: [{ name: 'index.html', content: PROBE_HTML }] });
    expect(new URL(url).origin).toBe(componentsOrigin);
    const board = await createBoard(server, 'Component origin');
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'external-component', data: { componentUrl: url, props: { label: 'Elsewhere' } }, position: { x: 0, y: 0 }, width: 460, height: 330 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(new URL(board.access_links.host).origin).not.toBe(componentsOrigin);
    expect((await fetch(board.access_links.host)).headers.get('content-security-policy')).toContain(`frame-src ${componentsOrigin};`);

    const host = await browsers.open(board.access_links.host);
    const frame = await componentFrame(host.page, created.body.id);
    await labelShown(frame, 'Elsewhere');
    expect(new URL(frame.url()).origin).toBe(componentsOrigin);
    await frame.waitForFunction((names) => names.every((check) => document.getElementById(`check-${check}`)), CHECKS);
    for (const check of CHECKS) expect(await frame.locator(`[id="check-${check}"]`).getAttribute('data-outcome'), check).toBe('blocked');
    await server.api('PATCH', `/boards/${board.board_uuid}/objects/${created.body.id}`, { data: { componentUrl: url, props: { label: 'Elsewhere, changed' } } });
    await labelShown(frame, 'Elsewhere, changed');
  });
});
