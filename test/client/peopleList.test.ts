import type { HocuspocusProvider } from '@hocuspocus/provider';
import { describe, expect, it } from 'vitest';
import { Presence } from '../../client/src/session/presence.js';
import type { ParticipantView } from '../../src/realtime/protocol/records.js';

/**
 * The page's people list after a (re)connect: the server's list is read over REST while
 * `participant:joined` and `participant:left` keep arriving on the socket. An answer read before
 * a join arrives after it; the list must not lose what the messages said meanwhile.
 */
const provider = { setAwarenessField: () => undefined, awareness: null } as unknown as HocuspocusProvider;
const me = { id: 'host-1', name: 'Host', color: '#000000', role: 'host' as const, renamable: true };
const view = (userId: string): ParticipantView => ({ user_id: userId, user_name: userId, user_type: 'anonymous', role: 'guest', joined_at: '2026-11-29T00:00:00.000Z', color: '#123456' });
const listed = (presence: Presence) => presence.people().filter((person) => !person.self).map((person) => person.id).sort();

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

describe('the people list after a reconnect', () => {
  it('keeps someone who joined while the server list was being read', async () => {
    const presence = new Presence(provider, me);
    const answer = deferred<ParticipantView[]>();
    const reloaded = presence.reloadParticipants(() => answer.promise);
    presence.participantJoined(view('student-2'));
    answer.resolve([view('student-1')]);
    await reloaded;
    expect(listed(presence)).toEqual(['student-1', 'student-2']);
  });

  it('drops someone who left while the server list was being read', async () => {
    const presence = new Presence(provider, me);
    const answer = deferred<ParticipantView[]>();
    const reloaded = presence.reloadParticipants(() => answer.promise);
    presence.participantLeft('student-1');
    answer.resolve([view('student-1'), view('student-2')]);
    await reloaded;
    expect(listed(presence)).toEqual(['student-2']);
  });

  it('ignores an answer that comes after the page went offline, and one a newer reload replaced', async () => {
    const presence = new Presence(provider, me);
    const late = deferred<ParticipantView[]>();
    const stale = presence.reloadParticipants(() => late.promise);
    presence.clearParticipants();
    late.resolve([view('student-1')]);
    await stale;
    expect(listed(presence)).toEqual([]);

    const older = deferred<ParticipantView[]>();
    const first = presence.reloadParticipants(() => older.promise);
    await presence.reloadParticipants(async () => [view('student-3')]);
    older.resolve([view('student-1')]);
    await first;
    expect(listed(presence)).toEqual(['student-3']);
  });
});
