import { readObject } from '../model/boardObject.js';
import type { ClientMessage } from '../../../src/realtime/protocol/clientMessages.js';
import { zoneDocumentName } from '../model/frames.js';
import { renderFramesPanel } from '../ui/framesPanel.js';
import type { ToolbarAction } from '../ui/toolbar.js';
import { hostControls } from './hostControls.js';
import type { BoardPage } from './page.js';
import { boundsOf } from './viewportRules.js';

/** What the open board does to its view: drawing objects and frames, zones opened and closed, toolbar actions, fitting. */

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

export function redrawObjects(page: BoardPage, document: string, ids: string[]): void {
  const handle = page.documents.get(document);
  for (const id of ids) {
    // An object carried across a zone's edge leaves one document and enters another.
    const here = handle ? readObject(id, handle.objects.get(id), document) : null;
    page.scene.drawObject(id, here ?? page.editor.find(id));
  }
}

export function redrawAll(page: BoardPage): void {
  for (const handle of page.documents.all()) redrawObjects(page, handle.name, [...handle.objects.keys()]);
}

export function reconcileZones(page: BoardPage): void {
  const readable = new Map(page.frames.readableZones().map(({ frame, access }) => [zoneDocumentName(page.link.boardId, frame.id), access]));
  for (const handle of page.documents.all()) {
    if (handle.name === page.link.boardId) continue;
    if (!readable.has(handle.name)) void closeZone(page, handle.name);
  }
  for (const [name, access] of readable) {
    const handle = page.documents.open(name, access === 'read', false);
    page.editor.track(handle);
    void handle.localReady.then(() => redrawObjects(page, name, [...handle.objects.keys()]));
  }
}

/** A zone this viewer may no longer read: gone from the screen and from the device. */
export async function closeZone(page: BoardPage, name: string): Promise<void> {
  if (name === page.link.boardId) return;
  page.editor.untrack(name);
  await page.documents.close(name, true);
}

export function redrawFrames(page: BoardPage, send: (message: ClientMessage) => void): void {
  const frames = page.frames.list();
  const me = page.state.me;
  page.scene.drawFrames(
    frames,
    (frame) => {
      const owner = frame.assigned_user_id ?? frame.assigned_participant_id;
      const lock = frame.lock_mode === 'none' ? '' : ` · ${frame.lock_mode} lock`;
      if (!owner) return lock ? lock.slice(3) : null;
      if (owner === me.user_id) return `your zone${lock}`;
      return me.role === 'host' ? `${owner} · ${frame.zone_visibility.replace('_', ' ')}${lock}` : null;
    },
    me.role === 'host',
  );
  if (me.role === 'host') {
    const panel = $('#frames-panel');
    panel.hidden = false;
    renderFramesPanel(
      panel,
      frames,
      hostControls({ api: page.api, camera: page.camera, send, navigateSelf: (id, smooth) => page.viewport.navigate(id, smooth), frameSaved: (frame) => page.frames.upsert(frame), say: (text, level) => page.say(text, level) }),
    );
  }
  page.reconcileZones();
}

export function act(page: BoardPage, action: ToolbarAction): void {
  const { camera } = page;
  switch (action) {
    case 'undo':
      return page.editor.undo();
    case 'redo':
      return page.editor.redo();
    case 'delete': {
      const id = page.tools.selected;
      if (!id) return;
      const result = page.editor.remove(id);
      if (!result.ok) return page.refused(result);
      return page.tools.select(null);
    }
    case 'zoom-in':
      return camera.zoomAt(1.25, camera.viewport().width * camera.zoom / 2, camera.viewport().height * camera.zoom / 2);
    case 'zoom-out':
      return camera.zoomAt(0.8, camera.viewport().width * camera.zoom / 2, camera.viewport().height * camera.zoom / 2);
    case 'fit':
      return fitContent(page);
  }
}

/**
 * Shows every object and frame; a student with a zone sees its zone first (on a phone the whole
 * board is too small to write in). A student held by a lock stays where the lock holds it.
 */
export function fitContent(page: BoardPage): void {
  if (page.camera.isLocked()) return;
  const me = page.state.me;
  const ownZone = me.role === 'guest' && me.user_id ? page.frames.list().find((frame) => (frame.assigned_user_id ?? frame.assigned_participant_id) === me.user_id) : undefined;
  if (ownZone) return page.camera.fit(boundsOf(ownZone), false);
  const boxes = [
    ...page.editor.all().map((o) => ({ x: o.position.x, y: o.position.y, width: o.width, height: o.height })),
    ...page.frames.list().map((frame) => ({ x: frame.bounds_x, y: frame.bounds_y, width: frame.bounds_width, height: frame.bounds_height })),
  ];
  if (boxes.length === 0) return page.camera.fit({ x: -100, y: -100, width: 1200, height: 800 }, false);
  const left = Math.min(...boxes.map((b) => b.x));
  const top = Math.min(...boxes.map((b) => b.y));
  const right = Math.max(...boxes.map((b) => b.x + b.width));
  const bottom = Math.max(...boxes.map((b) => b.y + b.height));
  page.camera.fit({ x: left - 40, y: top - 40, width: Math.max(400, right - left + 80), height: Math.max(300, bottom - top + 80) }, false);
}
