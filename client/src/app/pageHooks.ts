import { textOf } from '../model/boardObject.js';
import type { BoardPage } from './page.js';

/** What `window.whiteboard` reads: the open board once there is one, or why there is none. */
export interface PageHooks {
  page: BoardPage | null;
  unavailable: 'offline' | 'invalid-token' | null;
}

/**
 * `window.whiteboard`: read-only questions about the page for tests and integrators (what is
 * shown, where the view is, whether the work is saved). Defined before the board opens, so a
 * board that cannot be opened still answers (no objects, the reason it is closed).
 */
export function exposeHooks(): PageHooks {
  const hooks: PageHooks = { page: null, unavailable: null };
  const registration = 'serviceWorker' in navigator ? navigator.serviceWorker.ready.then(() => true) : Promise.resolve(false);
  (window as unknown as { whiteboard: unknown }).whiteboard = Object.freeze({
    viewport: () => hooks.page?.camera.viewport() ?? null,
    status: () => hooks.page?.syncState() ?? 'local',
    connection: () => {
      if (!hooks.page) return hooks.unavailable ? `closed:${hooks.unavailable}` : 'connecting';
      const state = hooks.page.connection.state();
      return state.kind === 'closed' ? `closed:${state.reason}` : state.kind;
    },
    objects: () => (hooks.page?.editor.all() ?? []).map((object) => ({ id: object.id, type: object.type, text: textOf(object), document: object.document })),
    role: () => hooks.page?.state.me.role ?? null,
    components: () => hooks.page?.components.status() ?? { ignored: 0, frames: [] },
    serviceWorkerReady: () => registration.then(async (ready) => ready && (navigator.serviceWorker.controller !== null || (await controllerChange()))),
    flushed: async () => hooks.page?.documents.flushed(),
  });
  return hooks;
}

function controllerChange(): Promise<boolean> {
  return new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', () => resolve(true), { once: true }));
}
