import type { BoardApi } from '../api.js';
import type { ClientMessage } from '../../../src/realtime/protocol/clientMessages.js';
import { deviceKeyOf, type BoardLink } from '../boardLink.js';
import { mountComponents } from '../components/mountComponents.js';
import { PointerTools, type Tool } from '../input/pointerTools.js';
import { TextEditor } from '../input/textEditor.js';
import { BoardEditor, type EditRefusal, type EditResult } from '../model/boardEditor.js';
import { FrameSet } from '../model/frames.js';
import { BoardDocuments, forgetDeviceCopies } from '../session/boardDocuments.js';
import { forgetsDevice } from '../session/closeReasons.js';
import { Presence } from '../session/presence.js';
import { notify, showConnection, showSyncState, type SyncState } from '../ui/notices.js';
import { renderPeople } from '../ui/peoplePanel.js';
import { renderToolbar, type ToolbarAction } from '../ui/toolbar.js';
import { Camera } from '../view/camera.js';
import { CursorLayer } from '../view/cursors.js';
import { Scene } from '../view/scene.js';
import { Connection } from './connection.js';
import { bindShortcuts } from './shortcuts.js';
import { asSessionParticipant, declaredIdentity, forgetStartup, rememberFrames, type StartupState } from './startup.js';
import { handleServerMessage } from './messageHandler.js';
import { act, closeZone, reconcileZones, redrawAll, redrawFrames, redrawObjects, fitContent } from './boardView.js';
import { ViewportRules, boundsOf } from './viewportRules.js';
import type { BoardPage } from './page.js';
import type { PageHooks } from './pageHooks.js';

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

const REFUSALS: Record<EditRefusal, string> = {
  missing: 'That object is gone.',
  locked: 'The host locked that object: it stays as it is.',
  'read-only': 'You can look at this area but not change it.',
  'not-yours': 'You cannot change that: it belongs to someone else.',
};

/** Opens the board the page's address names. */
export async function openBoard(link: BoardLink, hooks: PageHooks): Promise<void> {
  const deviceKey = await deviceKeyOf(link);
  const declared = declaredIdentity(link);
  const { api, started, link: actingLink } = await asSessionParticipant(link, deviceKey, declared);
  if (started.kind !== 'ready') {
    hooks.unavailable = started.kind === 'gone' ? 'invalid-token' : 'offline';
    return showUnavailable(started.kind === 'gone' ? started.message : null, deviceKey);
  }
  const state = started.state;
  if (state.staleCopy) await forgetDeviceCopies(deviceKey);
  const page = assemble(actingLink, state, deviceKey, api, declared);
  startDocuments(page);
  hooks.page = page;
}

function assemble(link: BoardLink, state: StartupState, deviceKey: string, api: BoardApi, declared: { userId: string; userName: string | null }): BoardPage {
  const { me } = state;
  const userId = me.user_id ?? declared.userId;
  const userName = displayName(me, userId, declared.userName);
  showHeading(me);
  const camera = new Camera();
  const scene = new Scene($<HTMLElement>('#scene') as unknown as SVGSVGElement, camera);
  const frames = new FrameSet({ role: me.role, userId: me.user_id });
  frames.replaceAll(state.frames);
  const page = {} as BoardPage;
  const documents = openDocuments(page, link, deviceKey, socketUrlOf(link, userId, userName));
  const editor = new BoardEditor(link.boardId, documents, frames, () => userId, me.role === 'host');
  const board = documents.open(link.boardId, false, true);
  editor.track(board);
  const presence = new Presence(board.provider, { id: userId, name: userName, color: me.color, role: me.role, renamable: me.credential !== 'personal_link' });
  const send = (message: ClientMessage) => board.provider.sendStateless(JSON.stringify(message));
  const components = mountComponents({ link, scene, camera, documents, editor, role: me.role, send });
  const viewport = new ViewportRules(camera, frames, { isHost: me.role === 'host', warning: $('#lock-warning'), send });
  showPresence(presence, camera);
  const say = (text: string, level: 'info' | 'warning' = 'info') => notify($('#notices'), text, level);
  const refused = (result: EditResult) => {
    if (!result.ok) say(REFUSALS[result.refusal], 'warning');
  };
  const textEditor = new TextEditor($<HTMLTextAreaElement>('#text-editor'), editor, camera, refused);
  const tools = createTools(page, { editor, scene, camera, frames, api, presence, textEditor, color: me.color, say, refused });
  const connection = createConnection(page, documents, api, presence);
  bindPeopleToggle();
  const pressTool = renderToolbar($('#toolbar'), (tool) => page.chooseTool(tool), (action) => page.act(action));
  Object.assign(page, {
    link, state, deviceKey, api, frames, documents, editor, scene, camera, tools, textEditor, presence, viewport, connection, say, refused, components,
    chooseTool(tool: Tool) {
      tools.tool = tool;
      document.body.dataset.tool = tool;
      pressTool(tool);
    },
    act: (action: ToolbarAction) => act(page, action),
    reconcileZones: () => reconcileZones(page),
    redrawFrames: () => redrawFrames(page, send),
    syncState: (): SyncState => (connection.state().kind !== 'connected' ? 'local' : documents.allSaved() ? 'saved' : 'syncing'),
    forgetDevice: async () => {
      await documents.forgetAll();
      forgetStartup(deviceKey);
    },
  } satisfies Partial<BoardPage>);
  bindShortcuts(page);
  page.chooseTool('select');
  frames.onChange(() => {
    rememberFrames(deviceKey, frames.list());
    page.redrawFrames();
  });
  return page;
}

/** The page's title and heading, and the role its styles go by. */
function showHeading(me: StartupState['me']): void {
  document.title = `${me.title} · Whiteboard`;
  $('#board-title').textContent = me.title;
  document.body.dataset.role = me.role;
}

/** The board's socket address: its token, and who the page says it is. */
function socketUrlOf(link: BoardLink, userId: string, userName: string): string {
  const socketQuery = new URLSearchParams({ token: link.token, user_id: userId, user_name: userName });
  return `${link.origin.replace(/^http/, 'ws')}/api/v1/realtime?${socketQuery}`;
}

/** The board's documents (the board and its zones), each change and message drawn on the page. */
function openDocuments(page: BoardPage, link: BoardLink, deviceKey: string, socketUrl: string): BoardDocuments {
  return new BoardDocuments({
    socketUrl,
    token: link.token,
    deviceKey,
    events: {
      objectsChanged: (document, ids) => redrawObjects(page, document, ids),
      message: (payload) => handleServerMessage(page, payload),
      documentRefused: (document) => void closeZone(page, document),
      syncChanged: () => showSyncState($('#sync-status'), page.syncState()),
    },
  });
}

/** The button that opens and closes the people panel. */
function bindPeopleToggle(): void {
  const toggle = $('#people-toggle');
  toggle.addEventListener('click', () => toggle.setAttribute('aria-expanded', String(document.body.classList.toggle('side-open'))));
}

/** A personal link shows its user as the link names it; anyone else as the name it chose. */
function displayName(me: StartupState['me'], userId: string, chosen: string | null): string {
  if (me.credential === 'personal_link') return me.user_name ?? userId;
  return me.user_name ?? chosen ?? (me.role === 'host' ? 'Host' : `Guest ${userId.slice(-4)}`);
}

/** The people list and the cursors, redrawn as presence changes. */
function showPresence(presence: Presence, camera: Camera): void {
  const cursors = new CursorLayer($('#cursors'), camera);
  const showPeople = () =>
    renderPeople($('#people'), presence.people(), (name) => {
      localStorage.setItem('wb:name', name);
      presence.rename(name);
    });
  presence.onChange(showPeople);
  presence.onCursors(() => cursors.update(presence.cursors()));
  showPeople();
}

function createTools(
  page: BoardPage,
  deps: Pick<BoardPage, 'editor' | 'scene' | 'camera' | 'frames' | 'api' | 'presence' | 'textEditor' | 'say' | 'refused'> & { color: string },
): PointerTools {
  const { frames, api, say } = deps;
  return new PointerTools({
    editor: deps.editor,
    scene: deps.scene,
    camera: deps.camera,
    editText: (id) => deps.textEditor.open(id),
    refused: deps.refused,
    selectionChanged: (id) => page.components.select(id),
    pointerMoved: (point) => deps.presence.moveCursor(point),
    color: () => deps.color,
    frameBounds: (frameId) => {
      const frame = frames.get(frameId);
      return frame ? boundsOf(frame) : null;
    },
    frameEdited: (frameId, bounds) => {
      api
        .updateFrame(frameId, { bounds_x: bounds.x, bounds_y: bounds.y, bounds_width: bounds.width, bounds_height: bounds.height })
        .then((frame) => frames.upsert(frame))
        .catch((error: unknown) => {
          say(`The frame stays where it was: ${error instanceof Error ? error.message : String(error)}`, 'warning');
          page.redrawFrames();
        });
    },
  });
}

function createConnection(page: BoardPage, documents: BoardDocuments, api: BoardApi, presence: Presence): Connection {
  const connection = new Connection(documents.socket, (connectionState) => {
    showConnection($('#connection-banner'), connectionState, () => connection.reconnect());
    showSyncState($('#sync-status'), page.syncState());
    // Who is here is the server's to say: nobody else is shown while this page is not connected.
    if (connectionState.kind === 'connected') void presence.reloadParticipants(async () => (await api.participants()).participants ?? []);
    else presence.clearParticipants();
  }, async () => ((await api.participants()).participants ?? []).some((participant) => participant.user_id === presence.myId()));
  connection.onClosedForGood((closed) => {
    // A deleted board or a dead link: nothing of it stays on the device.
    if (closed.kind === 'closed' && forgetsDevice(closed.reason)) void page.forgetDevice();
  });
  return connection;
}

function startDocuments(page: BoardPage): void {
  const stage = $('#stage');
  const resize = () => page.camera.resize(stage.clientWidth, stage.clientHeight);
  new ResizeObserver(resize).observe(stage);
  resize();
  page.redrawFrames();
  page.reconcileZones();
  const board = page.documents.get(page.link.boardId)!;
  // The device copy shows first; the server's arrives when it can. The view is fitted to the
  // content once, to the device copy when it has any, else to the server's first answer.
  let fitted = false;
  const fitOnce = () => {
    if (fitted) return;
    fitted = true;
    fitContent(page);
    page.viewport.applyStoredLocks();
  };
  void board.localReady.then(() => {
    redrawAll(page);
    if (board.objects.size > 0 || page.state.fromDevice) fitOnce();
    document.body.dataset.ready = 'true';
  });
  board.provider.on('synced', () => {
    void board.localReady.then(fitOnce);
    if (!page.state.fromDevice) return;
    void page.api.frames().then((frames) => page.frames.replaceAll(frames), () => undefined);
  });
}

function showUnavailable(message: string | null, deviceKey: string): void {
  const banner = $('#connection-banner');
  banner.hidden = false;
  banner.dataset.reason = message === null ? 'offline' : 'invalid-token';
  $('#sync-status').hidden = true;
  banner.textContent =
    message === null
      ? 'This board has not been opened on this device yet, and the server cannot be reached. Open the link again when you are online.'
      : `This board cannot be opened: ${message}. It may have been deleted or the link revoked.`;
  if (message !== null) {
    // The copy of a board that is gone leaves the device too (every document this key kept).
    forgetStartup(deviceKey);
    void forgetDeviceCopies(deviceKey);
  }
  document.body.dataset.ready = 'true';
}
