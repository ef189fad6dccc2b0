import type { HocuspocusProvider } from '@hocuspocus/provider';
import type { ParticipantView } from '../../../src/realtime/protocol/records.js';

/** Someone on the board: a person (from the server's participant events) or a visible agent. */
export interface Person {
  id: string;
  name: string;
  color: string;
  role: 'host' | 'guest' | null;
  agent: boolean;
  thinking: boolean;
  self: boolean;
  /** This page's own entry, when its name is its own to choose (a personal link's is the link's). */
  renamable: boolean;
}

/** A remote cursor: board coordinates, from the awareness state of another page. */
export interface RemoteCursor {
  clientId: number;
  userId: string;
  name: string;
  color: string;
  x: number;
  y: number;
}

interface AwarenessUser {
  id?: unknown;
  name?: unknown;
  color?: unknown;
  agent?: unknown;
  isThinking?: unknown;
  persona?: unknown;
}

/** A join or leave the server announced. */
type ParticipantChange = { kind: 'joined'; view: ParticipantView } | { kind: 'left'; userId: string };

/** Participant views the server sends (`participant:joined`, REST `participants`). */
export type { ParticipantView };

/** People whose name a link gives: the name they are listed under is the server's, not one their page chose. */
const NAMED_BY_LINK = new Set(['verified-student', 'authenticated']);

/**
 * The server lets 10 messages a second through per socket (docs/realtime.md "Socket rate limit"); the cursor takes
 * at most 8 of them, the view's location 1, leaving room for edits. Cursors glide between updates.
 */
const CURSOR_INTERVAL_MS = 125;

/**
 * Who is here and where their cursors are. The server's participant events say who is
 * connected; awareness adds names, cursors and agents' thinking. This page's own cursor is
 * sent at most every 125 ms (the awareness protocol carries the latest state only).
 */
export class Presence {
  private readonly joined = new Map<string, ParticipantView>();
  private readonly listeners = new Set<() => void>();
  private readonly cursorListeners = new Set<() => void>();
  /** What the people list showed last: awareness changes at cursor rate, the list rarely. */
  private peopleShown = '';
  private lastCursorAt = 0;
  private pendingCursor: { x: number; y: number } | null = null;
  /** Joins and leaves announced while the server's list is being read (`reloadParticipants`). */
  private changesWhileLoading: ParticipantChange[] | null = null;
  private listGeneration = 0;
  private cursorTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly provider: HocuspocusProvider,
    private readonly me: { id: string; name: string; color: string; role: 'host' | 'guest'; renamable: boolean },
  ) {
    provider.setAwarenessField('user', { id: me.id, name: me.name, color: me.color });
    provider.awareness?.on('change', () => {
      for (const listener of this.cursorListeners) listener();
      this.changed();
    });
  }

  /** The people list changed (someone came, left, was renamed, or an agent started or stopped thinking). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Any awareness change: cursors move. */
  onCursors(listener: () => void): void {
    this.cursorListeners.add(listener);
  }

  rename(name: string): void {
    this.me.name = name;
    this.provider.setAwarenessField('user', { id: this.me.id, name, color: this.me.color });
    this.changed();
  }

  /**
   * Replaces the list with the server's (after a (re)connect). Someone who joins or leaves while
   * `load` is under way is announced by a message that may arrive before the answer, which
   * predates it: such messages are applied again over the answer, or the list would lose them.
   */
  async reloadParticipants(load: () => Promise<ParticipantView[]>): Promise<void> {
    const generation = (this.listGeneration += 1);
    const meanwhile: ParticipantChange[] = [];
    this.changesWhileLoading = meanwhile;
    const views = await load().catch(() => null);
    // A newer reload answers instead, or the page went offline and shows nobody else.
    if (generation !== this.listGeneration) return;
    this.changesWhileLoading = null;
    if (views === null) return; // the list stays as the messages made it
    this.joined.clear();
    for (const view of views) this.joined.set(view.user_id, view);
    for (const change of meanwhile) this.apply(change);
    this.changed();
  }

  /** Nobody else is shown (this page is not connected). */
  clearParticipants(): void {
    this.listGeneration += 1;
    this.changesWhileLoading = null;
    this.joined.clear();
    this.changed();
  }

  participantJoined(view: ParticipantView): void {
    this.record({ kind: 'joined', view });
  }

  /** The id this page is listed under. */
  myId(): string {
    return this.me.id;
  }

  participantLeft(userId: string): void {
    this.record({ kind: 'left', userId });
  }

  private record(change: ParticipantChange): void {
    this.changesWhileLoading?.push(change);
    this.apply(change);
    this.changed();
  }

  private apply(change: ParticipantChange): void {
    if (change.kind === 'joined') this.joined.set(change.view.user_id, change.view);
    else this.joined.delete(change.userId);
  }

  moveCursor(point: { x: number; y: number } | null): void {
    this.pendingCursor = point;
    const wait = CURSOR_INTERVAL_MS - (Date.now() - this.lastCursorAt);
    if (wait <= 0) return this.sendCursor();
    this.cursorTimer ??= setTimeout(() => this.sendCursor(), wait);
  }

  people(): Person[] {
    const people = new Map<string, Person>();
    const { id: myId, name: myName, color: myColor, role: myRole, renamable } = this.me;
    people.set(myId, { id: myId, name: myName, color: myColor, role: myRole, agent: false, thinking: false, self: true, renamable });
    for (const view of this.joined.values()) {
      if (people.has(view.user_id)) continue;
      const agent = view.user_type === 'agent';
      const person = { id: view.user_id, name: view.user_name ?? view.user_id, color: view.color, role: view.role, agent, thinking: false, self: false, renamable: false };
      people.set(view.user_id, person);
    }
    for (const user of this.awarenessUsers()) {
      const id = typeof user.id === 'string' ? user.id : null;
      if (!id || id === this.me.id) continue;
      const known = people.get(id);
      const agent = user.agent === true;
      if (!known && !agent) continue; // a page whose participant has left
      const linkNamed = known !== undefined && NAMED_BY_LINK.has(this.joined.get(id)?.user_type ?? '');
      people.set(id, {
        id,
        name: !linkNamed && typeof user.name === 'string' ? user.name : (known?.name ?? id),
        color: typeof user.color === 'string' ? user.color : (known?.color ?? '#64748b'),
        role: known?.role ?? null,
        agent,
        thinking: user.isThinking === true,
        self: false,
        renamable: false,
      });
    }
    return [...people.values()];
  }

  cursors(): RemoteCursor[] {
    const cursors: RemoteCursor[] = [];
    const states: Map<number, unknown> = this.provider.awareness?.getStates() ?? new Map<number, unknown>();
    for (const [clientId, state] of states) {
      if (clientId === this.provider.document.clientID) continue;
      const user = (state as { user?: AwarenessUser }).user;
      const cursor = (state as { cursor?: { x?: unknown; y?: unknown } | null }).cursor;
      if (!user || typeof user.id !== 'string' || !cursor || typeof cursor.x !== 'number' || typeof cursor.y !== 'number') continue;
      cursors.push({ clientId, userId: user.id, name: typeof user.name === 'string' ? user.name : user.id, color: typeof user.color === 'string' ? user.color : '#64748b', x: cursor.x, y: cursor.y });
    }
    return cursors;
  }

  private sendCursor(): void {
    this.cursorTimer = null;
    this.lastCursorAt = Date.now();
    this.provider.setAwarenessField('cursor', this.pendingCursor);
  }

  private awarenessUsers(): AwarenessUser[] {
    const states: Map<number, unknown> = this.provider.awareness?.getStates() ?? new Map<number, unknown>();
    return [...states.values()].map((state) => (state as { user?: AwarenessUser }).user).filter((user): user is AwarenessUser => !!user);
  }

  private changed(): void {
    const shown = JSON.stringify(this.people());
    if (shown === this.peopleShown) return;
    this.peopleShown = shown;
    for (const listener of this.listeners) listener();
  }
}
