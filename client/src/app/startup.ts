import { ApiError, BoardApi, type Me } from '../api.js';
import type { BoardLink } from '../boardLink.js';
import type { FrameRecord } from '../model/frames.js';

/** What the page needs before it can draw: who it is and the frames, from the server or from the device. */
export interface StartupState {
  me: Me;
  frames: FrameRecord[];
  /** Read from the device because the server could not be reached. */
  fromDevice: boolean;
  /** The board's copy on this device belongs to an earlier board under this key: clear it first. */
  staleCopy: boolean;
}

export type Startup = { kind: 'ready'; state: StartupState } | { kind: 'gone'; status: number; message: string } | { kind: 'never-online' };

const API_WAIT_MS = 4_000;

/**
 * Asks the server who this link is and which frames the board has; keeps the answer on the
 * device so the next visit without a network opens the same board. A link the server refuses
 * (404, 410, 401) means the board or the link is gone.
 */
export async function startup(api: BoardApi, deviceKey: string): Promise<Startup> {
  const cachedMe = readJson<Me>(`${deviceKey}:me`);
  const cachedFrames = readJson<FrameRecord[]>(`${deviceKey}:frames`) ?? [];
  try {
    const [me, frames] = await withTimeout(Promise.all([api.me(), api.frames()]), API_WAIT_MS);
    localStorage.setItem(`${deviceKey}:me`, JSON.stringify(me));
    localStorage.setItem(`${deviceKey}:frames`, JSON.stringify(frames));
    return { kind: 'ready', state: { me, frames, fromDevice: false, staleCopy: cachedMe !== null && cachedMe.created_at !== me.created_at } };
  } catch (error) {
    if (error instanceof ApiError && [401, 403, 404, 410].includes(error.status)) return { kind: 'gone', status: error.status, message: error.message };
    if (!cachedMe) return { kind: 'never-online' };
    return { kind: 'ready', state: { me: cachedMe, frames: cachedFrames, fromDevice: true, staleCopy: false } };
  }
}

export function rememberFrames(deviceKey: string, frames: FrameRecord[]): void {
  localStorage.setItem(`${deviceKey}:frames`, JSON.stringify(frames));
}

/**
 * The link this device acts under: the shared guest link's holder becomes the session
 * participant minted for this device (its resume credential kept on the device with the
 * board), so a reload or an offline reopen is the same participant and keeps its zone.
 */
export async function asSessionParticipant(link: BoardLink, deviceKey: string, declared: Declared): Promise<{ api: BoardApi; started: Startup; link: BoardLink }> {
  const stored = localStorage.getItem(`${deviceKey}:session`);
  if (stored) {
    const session = { ...link, token: stored };
    const api = new BoardApi(session, declared);
    const started = await startup(api, deviceKey);
    // Forgotten by the server (a board's oldest sessions are): join through the shared link again.
    if (!(started.kind === 'gone' && started.status === 401)) return { api, started, link: session };
    localStorage.removeItem(`${deviceKey}:session`);
  }
  const api = new BoardApi(link, declared);
  const started = await startup(api, deviceKey);
  if (started.kind !== 'ready' || started.state.me.credential !== 'guest_link' || started.state.fromDevice) return { api, started, link };
  try {
    const minted = await api.startSession(declared.userName);
    rememberSession(deviceKey, minted.token);
    const session = { ...link, token: minted.token };
    const sessionApi = new BoardApi(session, declared);
    return { api: sessionApi, started: await startup(sessionApi, deviceKey), link: session };
  } catch {
    return { api, started, link }; // no session (the board's limit): an anonymous guest, as the link is
  }
}

type Declared = { userId: string; userName: string | null };

/** Keeps a session participant's resume credential: the next visit on this device acts under it. */
export function rememberSession(deviceKey: string, token: string): void {
  localStorage.setItem(`${deviceKey}:session`, token);
}

/** Forgets what startup kept for this board and credential. */
export function forgetStartup(deviceKey: string): void {
  localStorage.removeItem(`${deviceKey}:me`);
  localStorage.removeItem(`${deviceKey}:frames`);
  localStorage.removeItem(`${deviceKey}:session`);
}

/** The display identity a shared guest link declares: a random id kept on the device, and a name if one is known. */
export function declaredIdentity(link: BoardLink): { userId: string; userName: string | null } {
  let userId = link.declaredUserId ?? localStorage.getItem('wb:guest-id');
  if (!userId) {
    userId = `person-${crypto.randomUUID().slice(0, 8)}`;
    localStorage.setItem('wb:guest-id', userId);
  }
  return { userId, userName: link.declaredUserName ?? localStorage.getItem('wb:name') };
}

function readJson<T>(key: string): T | null {
  try {
    const text = localStorage.getItem(key);
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
