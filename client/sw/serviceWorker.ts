/// <reference lib="webworker" />
import { matchPrecache, precacheAndRoute, cleanupOutdatedCaches } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { NetworkFirst } from 'workbox-strategies';

declare const self: ServiceWorkerGlobalScope;
declare const __PRECACHE__: Array<{ url: string; revision: string | null }>;

// This build's page, script and style, kept in the browser's cache (workbox replaces them when a new build lands).
precacheAndRoute(__PRECACHE__);
cleanupOutdatedCaches();

// A board link asks the network first (a new build's page), and opens the kept page without one:
// the page is the same for every board, it reads the board and the token from its own address.
registerRoute(
  new NavigationRoute(
    new NetworkFirst({
      cacheName: 'board-pages',
      networkTimeoutSeconds: 4,
      plugins: [
        // Nothing is kept per address: the address carries the board token.
        { cacheWillUpdate: async () => null },
        { handlerDidError: async () => (await matchPrecache('/app/board.html')) ?? Response.error() },
      ],
    }),
    // Workbox matches the path with its query (`?token=…`).
    { allowlist: [/^\/boards\/[0-9a-f-]{36}\/?(\?.*)?$/i] },
  ),
);

self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
