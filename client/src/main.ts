import './board.css';
import { openBoard } from './app/boardPage.js';
import { exposeHooks } from './app/pageHooks.js';
import { readBoardLink } from './boardLink.js';

// The service worker keeps the page and its assets, so the board opens again without a network.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/boards/' }).catch((error: unknown) => console.warn('service worker not registered', error));
}

const hooks = exposeHooks();
const link = readBoardLink(window.location);
if (link) {
  void openBoard(link, hooks);
} else {
  hooks.unavailable = 'invalid-token';
  const banner = document.querySelector<HTMLElement>('#connection-banner')!;
  banner.hidden = false;
  banner.dataset.reason = 'invalid-token';
  banner.textContent = 'This address is not a board link: it needs /boards/<board id>?token=…';
  document.body.dataset.ready = 'true';
}
