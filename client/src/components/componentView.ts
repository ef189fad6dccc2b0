import type { BoardObject } from '../model/boardObject.js';

/** What a component object shows in its box. */
export type ViewState =
  /** Its URL is not one of this service's component files: never framed. */
  | 'foreign'
  /** The registry is being asked for its manifest. */
  | 'asking'
  /** Its version was deleted by its author (410). */
  | 'deleted'
  /** No such published version (404). */
  | 'unpublished'
  /** Not loaded: too far from the view (lazy loading) or unloaded after leaving it. */
  | 'waiting'
  /** Its frame is in the box. */
  | 'loaded';

/** A component's registry file path: `/components/files/<name>@<version>/<file>` (also under /api/v1). */
const FILE_PATH = /^\/(?:api\/v1\/)?components\/files\/([a-z0-9]+(?:-[a-z0-9]+)*)@([0-9A-Za-z.+-]{1,64})\//;

/** A component object's frame: the URL it loads (always on the components origin) and the `name@version` it names. */
export interface FrameSource {
  src: string;
  reference: string;
}

/**
 * Where a `data.componentUrl` is framed from, or null when it is not a file of this registry.
 * The registry also names its files by path alone, or on the app's own origin (it serves them
 * there too): those are framed from the components origin, the only origin the page frames.
 */
export function frameSource(url: unknown, componentsOrigin: string, appOrigin: string): FrameSource | null {
  if (typeof url !== 'string' || url.length > 2048) return null;
  let parsed: URL;
  try {
    parsed = new URL(url, componentsOrigin);
  } catch {
    return null;
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username || parsed.password) return null;
  if (parsed.origin !== componentsOrigin && parsed.origin !== appOrigin) return null;
  const match = FILE_PATH.exec(parsed.pathname);
  if (!match) return null;
  return { src: `${componentsOrigin}${parsed.pathname}${parsed.search}`, reference: `${match[1]}@${match[2]}` };
}

/** Where component files come from: the server names it in the page (`COMPONENTS_URL`, else the app's own origin). */
export function componentsOriginOf(doc: Document): string {
  const named = doc.querySelector<HTMLMetaElement>('meta[name="whiteboard-components-origin"]')?.content;
  try {
    return named ? new URL(named).origin : doc.location.origin;
  } catch {
    return doc.location.origin;
  }
}

/** The box of one component object, over the scene, in board units (the layer's transform does the camera). */
export function createBox(id: string): HTMLDivElement {
  const box = document.createElement('div');
  box.className = 'component-box';
  box.dataset.objectId = id;
  return box;
}

export function placeBox(box: HTMLDivElement, object: Pick<BoardObject, 'position' | 'width' | 'height'>): void {
  box.style.left = `${object.position.x}px`;
  box.style.top = `${object.position.y}px`;
  box.style.width = `${object.width}px`;
  box.style.height = `${object.height}px`;
}

/** Words shown in a box without a frame: a heading and a line of detail (text only, never markup). */
export function showNote(box: HTMLDivElement, state: 'asking' | 'waiting', detail: string): void {
  box.dataset.state = state;
  const note = document.createElement('div');
  note.className = 'component-note';
  note.setAttribute('role', 'status');
  note.append(textElement('strong', state === 'asking' ? 'Loading component…' : 'Component'), textElement('span', detail));
  box.replaceChildren(note);
}

/** Why a component cannot run in its box; each reason is also the box's `data-state`. */
export type Unavailable = Extract<ViewState, 'foreign' | 'deleted' | 'unpublished'>;

const REASONS: Record<Unavailable, string> = {
  deleted: 'This component version was deleted by its author, so it can no longer run.',
  unpublished: "This version is not published in this service's registry.",
  foreign: "It is not served by this whiteboard's components origin, so the page does not run it.",
};

/**
 * The card shown in place of a component that cannot run: what it is (`name@version`, or the
 * URL of one from elsewhere) and why, instead of an empty or broken frame.
 */
export function showUnavailable(box: HTMLDivElement, reason: Unavailable, reference: string): void {
  box.dataset.state = reason;
  const card = document.createElement('div');
  card.className = 'component-note component-unavailable';
  card.setAttribute('role', 'alert');
  const name = textElement('code', reference.length > 200 ? `${reference.slice(0, 200)}…` : reference);
  name.className = 'component-reference';
  card.append(textElement('strong', 'Component unavailable'), name, textElement('span', REASONS[reason]));
  box.replaceChildren(card);
}

function textElement(tag: 'strong' | 'span' | 'code', text: string): HTMLElement {
  const node = document.createElement(tag);
  node.textContent = text;
  return node;
}
