import {
  MAX_MESSAGES_PER_SECOND,
  PROTOCOL,
  parseComponentMessage,
  type BridgeInit,
  type ComponentRequest,
  type HostMessage,
  type JsonValue,
} from './protocol.js';

/** What the page does for one frame: the init's content, and each request the frame makes. */
export interface FrameHost {
  init(): Omit<BridgeInit, 'type' | 'protocol'>;
  request(message: ComponentRequest): Promise<unknown>;
  emit(name: string, payload: JsonValue): void;
}

/** What a frame sent, by fate: shown by `window.whiteboard.components()` and kept for diagnosis. */
export interface FrameCounters {
  accepted: number;
  malformed: number;
  oversize: number;
  rateLimited: number;
  /** Sent to the page's window instead of the port (only the first `bridge:ready` is read there). */
  ignored: number;
  /** Times the frame's document loaded (more than one: it reloaded or navigated itself). */
  loads: number;
}

/** Requests a frame may have unanswered at once; more are answered with an error at once. */
const MAX_IN_FLIGHT = 32;

/**
 * One component's `<iframe sandbox="allow-scripts">` and its end of the bridge. The frame's
 * origin is opaque, so the page cannot address it by origin: it posts the init (with a
 * MessageChannel port) to the frame's own window, and from then on listens only on that
 * port. Each document the frame loads gets a fresh channel; the previous port is closed.
 */
export class ComponentFrame {
  readonly iframe: HTMLIFrameElement;
  readonly counters: FrameCounters = { accepted: 0, malformed: 0, oversize: 0, rateLimited: 0, ignored: 0, loads: 0 };
  private port: MessagePort | null = null;
  private inits = 0;
  private inFlight = 0;
  private second = { start: 0, count: 0 };
  private destroyed = false;

  constructor(src: string, title: string, private readonly host: FrameHost) {
    const iframe = document.createElement('iframe');
    // Scripts only: no same-origin (an opaque origin holds none of the app's cookies or storage),
    // no popups, no top navigation, no forms, no downloads; no referrer (the page's address holds its token).
    iframe.setAttribute('sandbox', 'allow-scripts');
    iframe.setAttribute('referrerpolicy', 'no-referrer');
    iframe.setAttribute('allow', '');
    // Chromium: the frame's request carries no cookies even when components share the app's origin.
    iframe.setAttribute('credentialless', '');
    iframe.title = title;
    iframe.src = src;
    iframe.addEventListener('load', () => this.loaded());
    this.iframe = iframe;
  }

  /** Whether the bridge is open (the init was posted to the current document). */
  get ready(): boolean {
    return this.port !== null;
  }

  /**
   * A message on the page's window whose source is this frame's window. Only a `bridge:ready`
   * before the first load is read (a component that wants its init before `load`); the rest
   * goes over the port or nowhere.
   */
  fromWindow(data: unknown): void {
    const isReady = typeof data === 'object' && data !== null && (data as { type?: unknown }).type === 'bridge:ready';
    if (isReady && this.counters.loads === 0 && this.inits === 0) return this.openBridge();
    this.counters.ignored += 1;
  }

  post(message: HostMessage): void {
    this.port?.postMessage(message);
  }

  destroy(): void {
    this.destroyed = true;
    this.port?.close();
    this.port = null;
    this.iframe.remove();
  }

  private loaded(): void {
    if (this.destroyed) return;
    this.counters.loads += 1;
    // The first document may already have its bridge (it asked with `bridge:ready`).
    if (this.counters.loads === 1 && this.inits === 1) return;
    this.openBridge();
  }

  private openBridge(): void {
    const target = this.iframe.contentWindow;
    if (!target) return;
    this.inits += 1;
    this.port?.close();
    const channel = new MessageChannel();
    const port = channel.port1;
    port.onmessage = (event: MessageEvent) => this.receive(port, event.data);
    port.onmessageerror = () => {
      this.counters.malformed += 1;
    };
    this.port = port;
    const init: BridgeInit & { port: MessagePort } = { type: 'bridge:init', protocol: PROTOCOL, port: channel.port2, ...this.host.init() };
    // The frame's origin is opaque: '*' is the only target that reaches it; the window is the frame's own.
    target.postMessage(init, '*', [channel.port2]);
  }

  private receive(port: MessagePort, data: unknown): void {
    if (port !== this.port || this.destroyed) return;
    if (!this.withinRate()) {
      this.counters.rateLimited += 1;
      return;
    }
    const parsed = parseComponentMessage(data);
    if (!parsed.ok) {
      this.counters[parsed.refusal] += 1;
      return;
    }
    this.counters.accepted += 1;
    const message = parsed.message;
    if (message.type === 'event.emit') return this.host.emit(message.name, message.payload);
    void this.answer(port, message);
  }

  private async answer(port: MessagePort, message: ComponentRequest): Promise<void> {
    if (this.inFlight >= MAX_IN_FLIGHT) return this.respond(port, { type: 'response', id: message.id, error: { message: `At most ${MAX_IN_FLIGHT} requests may wait for an answer` } });
    this.inFlight += 1;
    try {
      const result = await this.host.request(message);
      this.respond(port, { type: 'response', id: message.id, result: result ?? null });
    } catch (error) {
      this.respond(port, { type: 'response', id: message.id, error: { message: error instanceof Error ? error.message : String(error) } });
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Answers on the port the request came on: a frame that reloaded since gets nothing meant for its previous document. */
  private respond(port: MessagePort, message: HostMessage): void {
    if (port === this.port) port.postMessage(message);
  }

  private withinRate(): boolean {
    const now = performance.now();
    if (now - this.second.start >= 1000) this.second = { start: now, count: 0 };
    this.second.count += 1;
    return this.second.count <= MAX_MESSAGES_PER_SECOND;
  }
}
