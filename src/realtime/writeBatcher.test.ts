import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FLUSH_WINDOW_MS, WriteBatcher, type BatchClock } from './writeBatcher.js';

/** A clock whose time and timers move only when the test says so. */
function manualClock() {
  let time = 1_000;
  let turnEnd: Array<() => void> = [];
  const timers: Array<{ at: number; task: () => void }> = [];
  const clock: BatchClock = {
    now: () => time,
    afterTurn: (task) => turnEnd.push(task),
    after: (ms, task) => timers.push({ at: time + ms, task }),
  };
  return {
    clock,
    /** Ends the current turn: what waits for it runs. */
    endTurn() {
      const tasks = turnEnd;
      turnEnd = [];
      tasks.forEach((task) => task());
    },
    /** Moves time on, running the timers that fall due (not the end of the turn). */
    advance(ms: number) {
      time += ms;
      for (const timer of timers.filter((entry) => entry.at <= time)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.task();
      }
    },
    /** Moves time on within one turn (a long one): no timer can run. */
    spend(ms: number) {
      time += ms;
    },
  };
}

/** A socket that records each write system call it would make: one per batch of chunks. */
function recordingSocket() {
  const writes: string[][] = [];
  const stream = new Duplex({
    read() {},
    writev(chunks, callback) {
      writes.push(chunks.map(({ chunk }) => String(chunk)));
      callback();
    },
    write(chunk, _encoding, callback) {
      writes.push([String(chunk)]);
      callback();
    },
  });
  return { stream, writes };
}

function setup() {
  const time = manualClock();
  const batcher = new WriteBatcher(time.clock);
  const send = (socket: ReturnType<typeof recordingSocket>, frame: string) => {
    batcher.hold(socket.stream);
    socket.stream.write(frame);
  };
  return { time, send };
}

describe('WriteBatcher', () => {
  it('sends what one turn wrote to a socket in one write when the turn ends, at once on an idle server', () => {
    const { time, send } = setup();
    const [a, b] = [recordingSocket(), recordingSocket()];
    send(a, 'a1');
    send(b, 'b1');
    send(a, 'a2');
    expect(a.writes).toEqual([]);
    time.endTurn();
    expect(a.writes).toEqual([['a1', 'a2']]);
    expect(b.writes).toEqual([['b1']]);
  });

  it('holds frames written within a window of the last flush until the window ends', () => {
    const { time, send } = setup();
    const socket = recordingSocket();
    send(socket, 'first');
    time.endTurn();
    send(socket, 'second');
    time.endTurn();
    time.advance(FLUSH_WINDOW_MS / 2);
    send(socket, 'third');
    time.endTurn();
    time.advance(FLUSH_WINDOW_MS / 2 - 1);
    expect(socket.writes).toEqual([['first']]);
    time.advance(1);
    expect(socket.writes).toEqual([['first'], ['second', 'third']]);
  });

  it('sends at the end of the turn again once a window has passed without a flush', () => {
    const { time, send } = setup();
    const socket = recordingSocket();
    send(socket, 'first');
    time.endTurn();
    time.advance(FLUSH_WINDOW_MS);
    send(socket, 'later');
    time.endTurn();
    expect(socket.writes).toEqual([['first'], ['later']]);
  });

  it('does not hold frames past the window inside one long turn', () => {
    const { time, send } = setup();
    const [a, b] = [recordingSocket(), recordingSocket()];
    send(a, 'a1');
    time.spend(FLUSH_WINDOW_MS - 1);
    send(b, 'b1');
    expect(a.writes).toEqual([]);
    time.spend(1);
    // The next write of the same turn, to any socket, first sends what waited a window.
    send(b, 'b2');
    expect(a.writes).toEqual([['a1']]);
    expect(b.writes).toEqual([['b1']]);
    time.advance(FLUSH_WINDOW_MS);
    time.endTurn();
    expect(b.writes).toEqual([['b1'], ['b2']]);
  });
});
