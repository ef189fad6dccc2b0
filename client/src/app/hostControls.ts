import type { BoardApi } from '../api.js';
import type { ClientMessage } from '../../../src/realtime/protocol/clientMessages.js';
import type { FrameRecord } from '../model/frames.js';
import type { Camera } from '../view/camera.js';
import type { FrameControls } from '../ui/framesPanel.js';

/** The host's frame and session controls, as REST calls and socket messages. */
export function hostControls(deps: {
  api: BoardApi;
  camera: Camera;
  send: (message: ClientMessage) => void;
  navigateSelf: (frameId: string, smooth: boolean) => void;
  frameSaved: (frame: FrameRecord) => void;
  say: (text: string, level?: 'info' | 'warning') => void;
}): FrameControls {
  const { api, camera, send, say } = deps;
  const attempt = async (what: string, call: () => Promise<FrameRecord>) => {
    try {
      deps.frameSaved(await call());
    } catch (error) {
      say(`Could not ${what}: ${error instanceof Error ? error.message : String(error)}`, 'warning');
    }
  };
  return {
    create: () => {
      const view = camera.viewport();
      const width = Math.max(200, Math.round(view.width * 0.5));
      const height = Math.max(150, Math.round(view.height * 0.5));
      void attempt('create the frame', () =>
        api.createFrame({ name: 'New frame', bounds_x: Math.round(view.x + view.width / 4), bounds_y: Math.round(view.y + view.height / 4), bounds_width: width, bounds_height: height }),
      );
    },
    navigate: (frame, smooth) => {
      send({ type: 'frame:navigate', frameId: frame.id, smooth });
      deps.navigateSelf(frame.id, smooth);
    },
    setLock: (frame, mode) => void attempt('change the lock', () => api.updateFrame(frame.id, { lock_mode: mode })),
    setZoneVisibility: (frame, visibility) => void attempt('change who sees the zone', () => api.updateFrame(frame.id, { zone_visibility: visibility })),
    rename: (frame, name) => void attempt('rename the frame', () => api.updateFrame(frame.id, { name })),
    assign: (frame, userId) => void attempt('assign the zone', () => api.assign(frame.id, userId)),
    copyLink: async (frame) => {
      const userId = frame.assigned_user_id ?? frame.assigned_participant_id;
      if (!userId) return null;
      try {
        const { link } = await api.personalLink(userId);
        await navigator.clipboard?.writeText(link).catch(() => undefined);
        say(`Personal link of ${userId} copied.`);
        return link;
      } catch (error) {
        say(`Could not get the link: ${error instanceof Error ? error.message : String(error)}`, 'warning');
        return null;
      }
    },
    endSession: () => {
      if (!confirm('End the session for everyone? Their work stays on the board.')) return;
      api.endSession().catch((error: unknown) => say(`Could not end the session: ${error instanceof Error ? error.message : String(error)}`, 'warning'));
    },
  };
}
