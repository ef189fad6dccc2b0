import * as encoding from 'lib0/encoding';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import { encodeStatelessFrame, encodeUpdateFrame, MessageType, peekFrame, SyncStep } from './wireFrames.js';
import { MessageGate, type MessageGateLimits } from './messageGate.js';

const DOC = 'board-1';
const LIMITS: MessageGateLimits = { perSecond: 10, floodPerSecond: 100, maxHeldBytes: 8 * 1024 * 1024 };

type Call =
  | { kind: 'deliver'; data: Uint8Array }
  | { kind: 'merged'; address: string; count: number }
  | { kind: 'notice'; address: string; coalesced: number }
  | { kind: 'flooding' }
  | { kind: 'invalid-awareness'; problem: string };

let time: number;
let calls: Call[];

function gate(limits: MessageGateLimits = LIMITS): MessageGate {
  return new MessageGate(
    {
      deliver: (data) => calls.push({ kind: 'deliver', data }),
      merged: (address, count) => calls.push({ kind: 'merged', address, count }),
      notifyCoalescing: (address, coalesced) => calls.push({ kind: 'notice', address, coalesced }),
      flooding: () => calls.push({ kind: 'flooding' }),
      invalidAwareness: (problem) => calls.push({ kind: 'invalid-awareness', problem }),
    },
    limits,
    () => time,
  );
}

/** Moves the injected clock and the drain timer forward together, one drain interval at a time. */
function advance(ms: number): void {
  for (let step = 0; step < ms; step += 100) {
    time += 100;
    vi.advanceTimersByTime(100);
  }
}

const delivered = () => calls.filter((call) => call.kind === 'deliver').map((call) => call.data);
const kinds = () => calls.map((call) => call.kind);

/** Real Yjs updates: one per change of a source document. */
function updates(count: number, source = new Y.Doc()): { source: Y.Doc; frames: Uint8Array[] } {
  const frames: Uint8Array[] = [];
  source.on('update', (update: Uint8Array) => frames.push(encodeUpdateFrame(DOC, update)));
  for (let index = 0; index < count; index += 1) source.getMap('objects').set(`object-${index}`, { index });
  return { source, frames };
}

function frame(type: number, write: (encoder: encoding.Encoder) => void): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, DOC);
  encoding.writeVarUint(encoder, type);
  write(encoder);
  return encoding.toUint8Array(encoder);
}

/** An Awareness frame carrying one y-protocols state (client id 7), its JSON text as given. */
const awarenessText = (json: string) =>
  frame(MessageType.Awareness, (e) => {
    const update = encoding.createEncoder();
    encoding.writeVarUint(update, 1);
    encoding.writeVarUint(update, 7);
    encoding.writeVarUint(update, 1);
    encoding.writeVarString(update, json);
    encoding.writeVarUint8Array(e, encoding.toUint8Array(update));
  });
const awareness = (x: number) => awarenessText(`{"cursor":{"x":${x},"y":0}}`);
const syncStep1 = () => frame(MessageType.Sync, (e) => (encoding.writeVarUint(e, SyncStep.Step1), encoding.writeVarUint8Array(e, Y.encodeStateVector(new Y.Doc()))));
const syncStep2 = () => frame(MessageType.Sync, (e) => (encoding.writeVarUint(e, SyncStep.Step2), encoding.writeVarUint8Array(e, Y.encodeStateAsUpdate(new Y.Doc()))));
const auth = () => frame(MessageType.Auth, (e) => (encoding.writeVarUint(e, 0), encoding.writeVarString(e, 'token')));

/** Applies every delivered update frame to a fresh document. */
function replay(frames: Uint8Array[]): Y.Doc {
  const doc = new Y.Doc();
  for (const data of frames) {
    const update = peekFrame(data)?.update;
    if (update) Y.applyUpdate(doc, update);
  }
  return doc;
}

beforeEach(() => {
  vi.useFakeTimers();
  time = 1_000_000;
  calls = [];
});

afterEach(() => {
  vi.useRealTimers();
});

describe('MessageGate', () => {
  it('lets messages within the limit through at once, untouched', () => {
    const subject = gate();
    const { frames } = updates(10);
    frames.forEach((data) => subject.receive(data));
    expect(delivered()).toEqual(frames);
    expect(kinds()).toEqual(Array(10).fill('deliver'));
    subject.close();
  });

  it('merges updates beyond the limit into one, owes an acknowledgement for each merged update, and loses nothing', () => {
    const subject = gate();
    const { source, frames } = updates(25);
    frames.forEach((data) => subject.receive(data));
    expect(delivered()).toHaveLength(10);
    expect(calls).toContainEqual({ kind: 'notice', address: DOC, coalesced: 1 });

    advance(100);
    // The debt is recorded before the merged update is handed on, so its acknowledgement carries it.
    expect(kinds().slice(-2)).toEqual(['merged', 'deliver']);
    expect(calls.at(-2)).toEqual({ kind: 'merged', address: DOC, count: 14 });
    expect(delivered()).toHaveLength(11);
    expect(replay(delivered()).getMap('objects').toJSON()).toEqual(source.getMap('objects').toJSON());
    subject.close();
  });

  it('lets held messages through at the allowed rate and passes new ones at once after draining', () => {
    const subject = gate();
    const { frames } = updates(10);
    frames.forEach((data) => subject.receive(data));
    const statelessFrames = [1, 2, 3].map((n) => encodeStatelessFrame(DOC, { type: 'ping', n }));
    statelessFrames.forEach((data) => subject.receive(data));
    expect(delivered()).toHaveLength(10);

    advance(100);
    expect(delivered()).toEqual([...frames, statelessFrames[0]]);
    advance(200);
    // Stateless messages are never merged, and keep their order.
    expect(delivered().slice(10)).toEqual(statelessFrames);

    advance(1_000);
    const later = encodeStatelessFrame(DOC, { type: 'ping', n: 4 });
    subject.receive(later);
    expect(delivered().at(-1)).toBe(later);
    subject.close();
  });

  it('keeps only the latest awareness state of a held burst', () => {
    const subject = gate();
    updates(10).frames.forEach((data) => subject.receive(data));
    const states = [1, 2, 3, 4, 5].map(awareness);
    states.forEach((data) => subject.receive(data));

    advance(500);
    expect(delivered().slice(10)).toEqual([states[4]]);
    subject.close();
  });

  it('never holds handshake frames (auth, sync step 1 and 2), even while other messages wait', () => {
    const subject = gate();
    updates(12).frames.forEach((data) => subject.receive(data));
    expect(delivered()).toHaveLength(10);

    const handshake = [auth(), syncStep1(), syncStep2()];
    handshake.forEach((data) => subject.receive(data));
    expect(delivered().slice(10)).toEqual(handshake);
    subject.close();
  });

  it('tells the client about coalescing at most once a second', () => {
    const subject = gate();
    updates(40).frames.forEach((data) => subject.receive(data));
    expect(calls.filter((call) => call.kind === 'notice')).toHaveLength(1);
    advance(1_000);
    updates(40).frames.forEach((data) => subject.receive(data));
    expect(calls.filter((call) => call.kind === 'notice')).toEqual([
      { kind: 'notice', address: DOC, coalesced: 1 },
      { kind: 'notice', address: DOC, coalesced: expect.any(Number) },
    ]);
    subject.close();
  });

  it('merges a steady 50 messages per second for ten seconds without treating it as a flood', () => {
    const subject = gate();
    const source = new Y.Doc();
    const { frames } = updates(0, source);
    for (let second = 0; second < 10; second += 1) {
      for (let tick = 0; tick < 10; tick += 1) {
        for (let n = 0; n < 5; n += 1) source.getMap('objects').set(`s${second}-t${tick}-n${n}`, n);
        frames.splice(0).forEach((data) => subject.receive(data));
        advance(100);
      }
    }
    advance(1_000);
    expect(kinds()).not.toContain('flooding');
    expect(replay(delivered()).getMap('objects').toJSON()).toEqual(source.getMap('objects').toJSON());
    const merged = calls.filter((call): call is Extract<Call, { kind: 'merged' }> => call.kind === 'merged');
    expect(delivered().length + merged.reduce((sum, call) => sum + call.count, 0)).toBe(500);
    subject.close();
  });

  it('lets the latest awareness through at least once a second while a stream of updates keeps coming', () => {
    const subject = gate();
    const source = new Y.Doc();
    const { frames } = updates(0, source);
    const awarenessAt: number[] = [];
    const start = time;
    let x = 0;
    // A user dragging an object (30 updates/s) while moving the cursor (30 awareness/s), for a minute.
    for (let tick = 0; tick < 600; tick += 1) {
      for (let n = 0; n < 3; n += 1) {
        source.getMap('objects').set('dragged', { x: (x += 1) });
        frames.splice(0).forEach((data) => subject.receive(data));
        subject.receive(awareness(x));
      }
      const before = delivered().length;
      advance(100);
      if (delivered().slice(before).some((data) => peekFrame(data)?.type === MessageType.Awareness)) awarenessAt.push(time);
    }
    expect(kinds()).not.toContain('flooding');
    const marks = [start, ...awarenessAt, time];
    const gaps = marks.slice(1).map((at, index) => at - marks[index]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1_000);
    // Still within the limit: about 10 deliveries a second, plus the initial burst.
    expect(delivered().length).toBeLessThanOrEqual(60 * 10 + 10);
    subject.close();
  });

  it('serves every document of a socket in turn, so a busy board (edits and cursor) does not starve its zone document', () => {
    const subject = gate();
    const zone = `${DOC}/zones/frame-1`;
    const board = new Y.Doc();
    const zoneDoc = new Y.Doc();
    const frames: Uint8Array[] = [];
    board.on('update', (update: Uint8Array) => frames.push(encodeUpdateFrame(DOC, update)));
    zoneDoc.on('update', (update: Uint8Array) => frames.push(encodeUpdateFrame(zone, update)));
    for (let tick = 0; tick < 50; tick += 1) {
      for (let n = 0; n < 3; n += 1) {
        board.getMap('objects').set('moving', { tick, n });
        frames.push(awareness(tick));
      }
      if (tick === 20) zoneDoc.getMap('objects').set('note', { text: 'private' });
      frames.splice(0).forEach((data) => subject.receive(data));
      advance(100);
    }
    const zoneDeliveries = delivered().filter((data) => peekFrame(data)?.documentName === zone);
    expect(replay(zoneDeliveries).getMap('objects').toJSON()).toEqual({ note: { text: 'private' } });
    subject.close();
  });

  it('counts only messages still waiting, not ones already let through, against the held-bytes budget', () => {
    const subject = gate({ ...LIMITS, maxHeldBytes: 4 * 1024 });
    const source = new Y.Doc();
    const { frames } = updates(0, source);
    // 20 updates and 20 awareness states a second for a minute: about 100 KiB in all,
    // never more than a few hundred bytes waiting at once.
    for (let tick = 0; tick < 600; tick += 1) {
      for (let n = 0; n < 2; n += 1) {
        source.getMap('objects').set(`t${tick}-n${n}`, 'x'.repeat(20));
        frames.splice(0).forEach((data) => subject.receive(data));
        subject.receive(awareness(tick));
      }
      advance(100);
    }
    advance(1_000);
    expect(kinds()).not.toContain('flooding');
    expect(replay(delivered()).getMap('objects').toJSON()).toEqual(source.getMap('objects').toJSON());
    subject.close();
  });

  it('reports a sustained flood once and delivers nothing after it', () => {
    const subject = gate();
    const { frames } = updates(2_000);
    let sent = 0;
    // 500 messages per second: far beyond the 100 per second (plus a 3 s burst) tolerated.
    while (!kinds().includes('flooding') && sent < frames.length) {
      for (let n = 0; n < 50; n += 1) subject.receive(frames[sent++]!);
      advance(100);
    }
    expect(kinds().filter((kind) => kind === 'flooding')).toHaveLength(1);
    expect(sent).toBeGreaterThan(300);
    const count = calls.length;
    subject.receive(frames[sent]!);
    subject.receive(auth());
    advance(1_000);
    expect(calls).toHaveLength(count);
  });

  it('reports flooding when held messages exceed the byte budget', () => {
    const subject = gate({ ...LIMITS, maxHeldBytes: 1_024 });
    const big = encodeStatelessFrame(DOC, { type: 'blob', text: 'x'.repeat(600) });
    for (let n = 0; n < 13; n += 1) subject.receive(big);
    expect(kinds()).toContain('flooding');
  });

  it('refuses an awareness state beyond the bounds before anything else, delivering nothing after it; one at the bounds passes', () => {
    const cases = [
      ['nested deeper than documents allow', `${'{"a":'.repeat(33)}1${'}'.repeat(33)}`, 'awareness state nests deeper than 32 levels'],
      ['larger than an awareness update may be', JSON.stringify({ name: 'x'.repeat(70_000) }), 'awareness update is larger than 65536 bytes'],
      ['not JSON', '{"cursor":', 'awareness state is not JSON'],
    ] as const;
    for (const [, json, problem] of cases) {
      calls = [];
      const subject = gate();
      subject.receive(awarenessText(json));
      subject.receive(awareness(1));
      expect(calls).toEqual([{ kind: 'invalid-awareness', problem }]);
    }
    calls = [];
    const undecodable = gate();
    undecodable.receive(frame(MessageType.Awareness, (e) => encoding.writeVarUint8Array(e, new Uint8Array([5, 1]))));
    expect(calls).toEqual([{ kind: 'invalid-awareness', problem: 'awareness update cannot be decoded' }]);

    // At the bounds, and a removed state (null), pass.
    calls = [];
    const subject = gate();
    const deepest = awarenessText(`${'{"a":'.repeat(32)}1${'}'.repeat(32)}`);
    const removed = awarenessText('null');
    subject.receive(deepest);
    subject.receive(removed);
    expect(delivered()).toEqual([deepest, removed]);
    subject.close();
  });

  it('stops draining once closed', () => {
    const subject = gate();
    updates(20).frames.forEach((data) => subject.receive(data));
    subject.close();
    advance(1_000);
    expect(delivered()).toHaveLength(10);
  });
});
