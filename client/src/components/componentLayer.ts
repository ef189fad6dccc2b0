import type { BoardObject } from '../model/boardObject.js';
import type { BoardDocuments } from '../session/boardDocuments.js';
import type { Camera } from '../view/camera.js';
import './components.css';
import { frameHost, type BridgeDependencies } from './bridgeHost.js';
import { ComponentFrame, type FrameCounters } from './componentFrame.js';
import { changedKeys, observeStorage, storageOf } from './componentStorage.js';
import { createBox, frameSource, placeBox, showNote, showUnavailable, type FrameSource, type ViewState } from './componentView.js';
import { propsWithDefaults, type ClientManifest, type ComponentManifests } from './manifests.js';
import type { PropsPanel } from './propsPanel.js';
import { isPlainObject, type JsonObject, type JsonValue } from './protocol.js';

export const EXTERNAL_COMPONENT = 'external-component';

export interface ComponentLayerOptions {
  /** The scene's SVG: the layer sits right above it and follows its move previews. */
  svg: SVGSVGElement;
  camera: Camera;
  documents: BoardDocuments;
  manifests: ComponentManifests;
  bridge: BridgeDependencies;
  componentsOrigin: string;
  /** The host's props editor (null for guests). */
  panel: PropsPanel | null;
}

/** One component object on the page. */
interface View {
  id: string;
  object: BoardObject;
  url: string;
  /** Where its frame loads from; null: not a component of this service. */
  source: FrameSource | null;
  box: HTMLDivElement;
  state: ViewState;
  manifest: ClientManifest | null;
  frame: ComponentFrame | null;
  /** What the frame was last told, so a redraw that changed nothing sends nothing. */
  sentProps: string;
  sentStorage: JsonObject;
  /** This viewer's private storage values (from the storage route: never in a document). */
  privateStorage: JsonObject;
  unloadTimer: ReturnType<typeof setTimeout> | null;
}

/** A `component:event` the server relays (plan "Global events"). */
export interface ComponentEventMessage {
  object_id: string;
  name: string;
  payload?: unknown;
  targets: string[];
}

/** What `window.whiteboard.components()` answers. */
export interface ComponentsStatus {
  /** Messages on the page's window from anything but a component frame (another window, a forger): ignored. */
  ignored: number;
  frames: { id: string; url: string; state: ViewState; counters: FrameCounters | null }[];
}

/**
 * The components of the board, each in an HTML box over the scene whose transform follows the
 * camera, so a frame stays exactly on its object under pan and zoom without being recreated
 * (moving an iframe in the DOM reloads it). A frame is made when its box comes within the
 * manifest's `rendering.viewport.margin` of the view, and dropped when it leaves (after
 * `keepAliveTimeout` with `keepAlive`). Frames take pointer input only while their object is
 * selected, so the board's tools still reach the object.
 */
export class ComponentLayer {
  private readonly world: HTMLDivElement;
  private readonly views = new Map<string, View>();
  private readonly observedDocs = new WeakSet<object>();
  private selected: string | null = null;
  private ignored = 0;
  private reviewPending = false;

  constructor(private readonly options: ComponentLayerOptions) {
    const layer = document.createElement('div');
    layer.id = 'components-layer';
    this.world = document.createElement('div');
    this.world.className = 'components-world';
    layer.append(this.world);
    options.svg.after(layer);
    options.camera.onChange(() => {
      this.placeWorld();
      this.scheduleReview();
    });
    this.placeWorld();
    window.addEventListener('message', (event) => this.windowMessage(event));
    // A dragged object moves as a preview (its `<g>` translated) until dropped: its frame moves with it.
    new MutationObserver((mutations) => this.followPreviews(mutations)).observe(options.svg, { subtree: true, attributes: true, attributeFilter: ['transform'] });
  }

  /** The scene drew an object (or removed it: null): its box follows; a component's props changes reach its frame. */
  objectDrawn(id: string, object: BoardObject | null): void {
    const view = this.views.get(id);
    if (!object || object.type !== EXTERNAL_COMPONENT) {
      if (view) this.remove(view);
      return;
    }
    const url = typeof object.data.componentUrl === 'string' ? object.data.componentUrl : '';
    if (!view || view.url !== url) {
      if (view) this.remove(view);
      return this.add(id, object, url);
    }
    view.object = object;
    placeBox(view.box, object);
    if (id === this.selected) this.refreshPanel();
    // Carried into a zone, it lives in another document: that one's storage map is watched too.
    this.watchStorage(object.document);
    this.sendProps(view);
    this.scheduleReview();
  }

  select(id: string | null): void {
    if (this.selected) this.views.get(this.selected)?.box.classList.remove('selected');
    this.selected = id;
    if (id) this.views.get(id)?.box.classList.add('selected');
    this.refreshPanel();
  }

  /** A `component:event` from the server: each frame it targets gets it. */
  deliverEvent(message: ComponentEventMessage): void {
    if (typeof message.name !== 'string' || typeof message.object_id !== 'string' || !Array.isArray(message.targets)) return;
    for (const target of new Set(message.targets)) {
      this.views.get(target)?.frame?.post({ type: 'event', name: message.name, payload: (message.payload ?? null) as JsonValue, object_id: message.object_id });
    }
  }

  status(): ComponentsStatus {
    return { ignored: this.ignored, frames: [...this.views.values()].map((view) => ({ id: view.id, url: view.url, state: view.state, counters: view.frame ? { ...view.frame.counters } : null })) };
  }

  private add(id: string, object: BoardObject, url: string): void {
    const box = createBox(id);
    if (id === this.selected) box.classList.add('selected');
    placeBox(box, object);
    this.world.append(box);
    const source = frameSource(url, this.options.componentsOrigin, location.origin);
    const view: View = { id, object, url, source, box, state: 'asking', manifest: null, frame: null, sentProps: '', sentStorage: {}, privateStorage: {}, unloadTimer: null };
    this.views.set(id, view);
    if (!source) {
      view.state = 'foreign';
      return showUnavailable(box, 'foreign', url || '(no componentUrl)');
    }
    const { reference } = source;
    showNote(box, 'asking', reference);
    this.watchStorage(object.document);
    void this.options.manifests.get(url).then((answer) => {
      if (this.views.get(id) !== view) return;
      if (answer.kind !== 'ready') {
        view.state = answer.kind;
        return showUnavailable(box, answer.kind, reference);
      }
      view.manifest = answer.manifest;
      view.state = 'waiting';
      if (id === this.selected) this.refreshPanel();
      showNote(box, 'waiting', `${answer.manifest.title ?? reference} loads when it comes into view.`);
      this.scheduleReview();
    });
  }

  private remove(view: View): void {
    this.unload(view);
    view.box.remove();
    this.views.delete(view.id);
    if (view.id === this.selected) this.refreshPanel();
  }

  /** The host's props editor shows the selected component, when the host may write its props. */
  private refreshPanel(): void {
    const view = this.selected ? this.views.get(this.selected) : undefined;
    const manifest = view?.manifest?.propsWriters.host ? view.manifest : null;
    this.options.panel?.show(view?.object ?? null, manifest);
  }

  private load(view: View): void {
    const manifest = view.manifest!;
    const base = frameHost(this.options.bridge, { objectId: view.id, manifest, storage: () => this.storageFor(view) });
    const frame = new ComponentFrame(view.source!.src, `${manifest.title ?? 'Component'} (component)`, {
      ...base,
      init: () => {
        const init = base.init();
        view.sentProps = JSON.stringify(init.props);
        view.sentStorage = init.storage;
        void this.readPrivateStorage(view);
        return init;
      },
    });
    view.frame = frame;
    view.state = 'loaded';
    view.box.dataset.state = 'loaded';
    view.box.replaceChildren(frame.iframe);
  }

  private unload(view: View): void {
    if (view.unloadTimer) clearTimeout(view.unloadTimer);
    view.unloadTimer = null;
    if (!view.frame) return;
    view.frame.destroy();
    view.frame = null;
    view.state = 'waiting';
    showNote(view.box, 'waiting', `${view.manifest?.title ?? view.source?.reference} loads when it comes into view.`);
  }

  /** Loads the frames near the view, and lets go of those that left it (`keepAlive` decides when). */
  private review(): void {
    this.reviewPending = false;
    const view = this.options.camera.viewport();
    const zoom = this.options.camera.zoom;
    for (const item of this.views.values()) {
      const manifest = item.manifest;
      if (!manifest || (item.state !== 'waiting' && item.state !== 'loaded')) continue;
      const { lazyLoad, margin, keepAlive, keepAliveTimeout } = manifest.rendering;
      const near = !lazyLoad || overlaps(item.object, view, margin / zoom);
      if (near) {
        if (item.unloadTimer) clearTimeout(item.unloadTimer);
        item.unloadTimer = null;
        if (!item.frame) this.load(item);
      } else if (item.frame && !item.unloadTimer) {
        if (!keepAlive) this.unload(item);
        // keepAliveTimeout 0 with keepAlive: kept for as long as the page is open.
        else if (keepAliveTimeout > 0) item.unloadTimer = setTimeout(() => this.unload(item), keepAliveTimeout);
      }
    }
  }

  private scheduleReview(): void {
    if (this.reviewPending) return;
    this.reviewPending = true;
    requestAnimationFrame(() => this.review());
  }

  private placeWorld(): void {
    const { x, y, zoom } = this.options.camera;
    this.world.style.transform = `matrix(${zoom}, 0, 0, ${zoom}, ${-x * zoom}, ${-y * zoom})`;
  }

  private sendProps(view: View): void {
    if (!view.frame?.ready || !view.manifest) return;
    const props = propsWithDefaults(view.manifest, view.object.data.props);
    const json = JSON.stringify(props);
    if (json === view.sentProps) return;
    view.sentProps = json;
    view.frame.post({ type: 'props.update', props });
  }

  private storageFor(view: View): JsonObject {
    const handle = this.options.documents.get(view.object.document);
    return { ...view.privateStorage, ...(handle ? storageOf(handle.doc, view.id) : {}) };
  }

  private sendStorage(view: View): void {
    if (!view.frame?.ready) return;
    const now = this.storageFor(view);
    for (const [key, value] of changedKeys(view.sentStorage, now)) view.frame.post({ type: 'storage.update', key, value });
    view.sentStorage = now;
  }

  /** The storage route adds this viewer's private values, which no document holds. */
  private async readPrivateStorage(view: View): Promise<void> {
    const answer = await this.options.bridge.api.storage(view.id).catch(() => null);
    if (!isPlainObject(answer) || !isPlainObject(answer.values) || !isPlainObject(answer.visibility)) return;
    const visibility = answer.visibility;
    view.privateStorage = Object.fromEntries(Object.entries(answer.values).filter(([key]) => visibility[key] === 'private')) as JsonObject;
    this.sendStorage(view);
  }

  private watchStorage(documentName: string): void {
    const handle = this.options.documents.get(documentName);
    if (!handle || this.observedDocs.has(handle.doc)) return;
    this.observedDocs.add(handle.doc);
    observeStorage(handle.doc, (id) => {
      const view = this.views.get(id);
      if (view) this.sendStorage(view);
    });
  }

  /** Only a component frame's own window may speak on the page's window, and only to ask for its init. */
  private windowMessage(event: MessageEvent): void {
    const source = event.source;
    const view = source ? [...this.views.values()].find((candidate) => candidate.frame?.iframe.contentWindow === source) : undefined;
    if (view?.frame) view.frame.fromWindow(event.data);
    else this.ignored += 1;
  }

  private followPreviews(mutations: MutationRecord[]): void {
    for (const mutation of mutations) {
      const group = mutation.target as SVGGElement;
      const view = group.dataset?.type === EXTERNAL_COMPONENT ? this.views.get(group.dataset.objectId ?? '') : undefined;
      const match = view ? /translate\(\s*(-?[\d.e+-]+)[\s,]+(-?[\d.e+-]+)\s*\)/.exec(group.getAttribute('transform') ?? '') : null;
      if (view && match) placeBox(view.box, { position: { x: Number(match[1]), y: Number(match[2]) }, width: view.object.width, height: view.object.height });
    }
  }
}

/** Whether a box lies within `margin` of a rectangle (board units). */
function overlaps(object: BoardObject, view: { x: number; y: number; width: number; height: number }, margin: number): boolean {
  const { x, y } = object.position;
  return x + object.width >= view.x - margin && x <= view.x + view.width + margin && y + object.height >= view.y - margin && y <= view.y + view.height + margin;
}
