import { adviceFor, type ConnectionState } from '../session/closeReasons.js';

export type SyncState = 'local' | 'syncing' | 'saved';

const SYNC_WORDS: Record<SyncState, string> = {
  local: 'Saved on this device',
  syncing: 'Syncing…',
  saved: 'Saved',
};

/** The chip that says where the user's work is: only on this device, on its way, or stored by the server. */
export function showSyncState(chip: HTMLElement, state: SyncState): void {
  if (chip.dataset.state === state && chip.textContent === SYNC_WORDS[state]) return;
  chip.dataset.state = state;
  chip.textContent = SYNC_WORDS[state];
}

/** The banner for a closed or lost connection, with a reconnect button where the close allows one. */
export function showConnection(banner: HTMLElement, state: ConnectionState, reconnect: () => void): void {
  if (state.kind === 'connected' || state.kind === 'connecting') {
    banner.hidden = true;
    delete banner.dataset.reason;
    return;
  }
  const reason = state.kind === 'offline' ? 'offline' : state.reason;
  if (banner.dataset.reason === reason && !banner.hidden) return;
  banner.dataset.reason = reason;
  banner.replaceChildren();
  const words = document.createElement('p');
  if (state.kind === 'offline') {
    words.textContent = 'You are offline. Keep working: your changes are saved on this device and sent when the connection returns.';
    banner.append(words);
  } else {
    const advice = adviceFor(state.reason);
    words.textContent = advice.words;
    banner.append(words);
    if (advice.reconnect === 'on-request') {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = 'Reconnect';
      button.dataset.action = 'reconnect';
      button.addEventListener('click', reconnect);
      banner.append(button);
    }
  }
  banner.hidden = false;
}

/** A message that fades after a while (refused edits, copied links, agents' notifications). */
export function notify(container: HTMLElement, text: string, level: 'info' | 'warning' = 'info', ms = 6_000): void {
  const notice = document.createElement('div');
  notice.className = `notice ${level}`;
  notice.setAttribute('role', level === 'warning' ? 'alert' : 'status');
  notice.textContent = text;
  container.append(notice);
  setTimeout(() => notice.remove(), ms);
  while (container.children.length > 4) container.firstElementChild?.remove();
}
