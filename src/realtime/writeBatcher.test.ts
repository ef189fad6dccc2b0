import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BUSY_UTILIZATION, FLUSH_WINDOW_MS, WriteBatcher, type BatchClock } from './writeBatcher.js';

/** A clock whose time and timers move only when the test says so. */
function manualClock() {
  let time = 1_000;
  let utilization = 1;
  let turnEnd: Array<() => void> = [];
  const timers: Array<{ at: number; task: () => void }> = [];
  const clock: BatchClock = {
    now: () => time,
    afterTurn: (task) => turnEnd.push(task),
    after: (ms, task) => timers.push({ at: time + ms, task }),
    utilization: () => utilization,
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
    /** How busy the event loop is from now on (1 unless said). */
    setUtilization(value: number) {
      utilization = value;
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

  it('holds frames to a socket flushed within the window until the window ends', () => {
    const { time, send } = setup();
    const socket = recordingSocket();
    send(socket, 'first');
    time.endTurn();
    time.advance(FLUSH_WINDOW_MS / 2);
    send(socket, 'second');
    time.endTurn();
    send(socket, 'third');
    time.endTurn();
    // The window ends one window after the socket's last flush, not after the frame that waits.
    time.advance(FLUSH_WINDOW_MS / 2 - 1);
    expect(socket.writes).toEqual([['first']]);
    time.advance(1);
    expect(socket.writes).toEqual([['first'], ['second', 'third']]);
  });

  it('sends at the end of the turn to a socket not flushed within the window, while a busy one waits', () => {
    const { time, send } = setup();
    const [busy, quiet] = [recordingSocket(), recordingSocket()];
    send(busy, 'b1');
    time.endTurn();
    send(busy, 'b2');
    send(quiet, 'q1');
    time.endTurn();
    expect(quiet.writes).toEqual([['q1']]);
    expect(busy.writes).toEqual([['b1']]);
    time.advance(FLUSH_WINDOW_MS);
    expect(busy.writes).toEqual([['b1'], ['b2']]);
  });

  it('sends at the end of every turn while the event loop has room, a busy socket too', () => {
    const { time, send } = setup();
    time.setUtilization(BUSY_UTILIZATION - 0.01);
    const socket = recordingSocket();
    send(socket, 'first');
    time.endTurn();
    send(socket, 'second');
    time.endTurn();
    expect(socket.writes).toEqual([['first'], ['second']]);
    time.setUtilization(BUSY_UTILIZATION);
    send(socket, 'third');
    time.endTurn();
    expect(socket.writes).toEqual([['first'], ['second']]);
    time.advance(FLUSH_WINDOW_MS);
    expect(socket.writes).toEqual([['first'], ['second'], ['third']]);
  });

  it('sends at the end of the turn again once a window has passed since the socket was flushed', () => {
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
