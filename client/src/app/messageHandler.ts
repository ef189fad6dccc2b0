import type { BoardPage } from './page.js';
import { parseServerMessage, rejectionWords } from './serverMessages.js';

/** What the page does with each message the server sends. */
export function handleServerMessage(page: BoardPage, payload: string): void {
  const message = parseServerMessage(payload);
  if (!message) return;
  switch (message.type) {
    case 'frame:created':
    case 'frame:updated':
      page.frames.upsert(message.frame);
      page.viewport.frameChanged(message.frame.id);
      return;
    case 'frame:deleted':
      page.frames.remove(message.frame.id);
      page.viewport.frameChanged(message.frame.id);
      return;
    case 'frame:navigate':
      return page.viewport.navigate(message.frameId, message.smooth);
    case 'frame:lock': {
      const frame = page.frames.get(message.frameId);
      if (frame) page.frames.upsert({ ...frame, lock_mode: message.lockMode });
      return page.viewport.setLock(message.frameId, message.lockMode);
    }
    case 'participant:joined':
      return page.presence.participantJoined(message.participant);
    case 'participant:left':
      return page.presence.participantLeft(message.user_id);
    case 'write-rejected':
      return page.say(rejectionWords(message.reason, message.object_ids.length), 'warning');
    case 'agent:notification':
      return page.say(`${message.agent.name}: ${message.title ? `${message.title} — ` : ''}${message.message}`, message.level === 'warning' || message.level === 'error' ? 'warning' : 'info');
    case 'component:event':
      return page.components.deliverEvent(message);
    case 'rate-limited':
      // The server merged this page's messages (nothing is lost): no one needs telling.
      return;
    case 'error':
      return page.say(`The server refused a request: ${message.message}`, 'warning');
    case 'subscribed':
    case 'participant:location':
      return;
    default: {
      const unknown: never = message;
      return unknown;
    }
  }
}
