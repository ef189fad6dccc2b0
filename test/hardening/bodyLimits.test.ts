import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { QUIZ_SCHEMA, serverForSuite } from '../helpers/fixtures.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/serviceProcess.js';
import { startSlowUplinkProxy } from '../helpers/slowUplinkProxy.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { request, type ApiResponse } from '../helpers/testServer.js';
import { HealthProbe, now } from './healthProbe.js';

/**
 * A request body is bounded at 10 MB, not each string in it;
 * what makes work grow faster than the bytes (values, nesting) is bounded before parsing; and a
 * body over its limit is answered 413 and the rest of it read and dropped, never reset.
 */
const MB = 1024 * 1024;

const { server } = serverForSuite();
const json = { 'content-type': 'application/json' };
const asOrganization = () => ({ 'x-api-key': server.apiKey, ...json });
/** A create body whose `external_data` holds one string of `bytes` bytes. */
const boardWithString = (bytes: number) => JSON.stringify({ title: 'Large context', external_data: { blob: 'x'.repeat(bytes) } });

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'body-limits-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the body is bounded as a whole (10 MB), not by the length of one string', () => {
  it('accepts a 2 MB string in external_data and reads it back intact', async () => {
    const created = await request(server.url, 'POST', '/api/v1/boards', boardWithString(2 * MB), asOrganization());
    expect(created.status).toBe(201);
    const read = await server.api('GET', `/boards/${created.body.board_uuid}?includeObjects=false`);
    expect(read.body.external_data).toEqual({ blob: 'x'.repeat(2 * MB) });
  });

  describe('with the service in a process of its own, /health probed every 20 ms from a thread of its own', () => {
    let database: TestDatabase;
    let service: ServiceProcess;
    let probe: HealthProbe;
    const apiKey = `body-limits-${randomBytes(24).toString('hex')}`;
    const asKey = () => ({ 'x-api-key': apiKey, ...json });
    beforeAll(async () => {
      database = await createTestDatabase();
      service = await startServiceProcess({
        NODE_ENV: 'production',
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        BOOTSTRAP_API_KEY: apiKey,
        BOOTSTRAP_PLAN: 'enterprise',
        JWT_SECRET: randomBytes(32).toString('hex'),
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
      });
      const registered = await request(service.url, 'POST', '/api/v1/object-types', { typeName: 'quiz', displayName: 'Quiz', category: 'tests', schema: QUIZ_SCHEMA }, asKey());
      expect(registered.status).toBe(201);
      probe = HealthProbe.start(service.url, 20);
    }, 60_000);
    afterAll(async () => {
      await probe?.stop();
      await service?.stop();
      await database?.drop();
    });

    /** A `/health` stall since `from`; a probe must have been answered meanwhile. */
    const stallSince = async (from: number) => {
      expect(await probe.worstSince(from), 'no /health probe was answered meanwhile').toBeDefined();
      return probe.stallSince(from);
    };
    /**
     * Runs `calls` and reports a stall; one seen once is run again, and counts only when seen
     * twice: on a shared machine one slow probe may be someone else's work.
     */
    const expectNoStall = async (calls: () => Promise<void>) => {
      let from = now();
      await calls();
      if (!(await stallSince(from))) return;
      from = now();
      await calls();
      expect(await stallSince(from)).toBeNull();
    };

    it('reads, parses and checks a 9 MB body and answers an 11 MB one 413, and /health is never blocked over 100 ms meanwhile', async () => {
      // 9 MB of external_data beside an initial object its type refuses: the edge reads, parses
      // and checks the whole body, the domain refuses it before anything is stored.
      const nineMb = JSON.stringify({ title: 'Large context', external_data: { blob: 'x'.repeat(9 * MB) }, initial_objects: [{ type: 'quiz', data: {}, position: { x: 0, y: 0 } }] });
      const elevenMb = boardWithString(11 * MB);
      await expectNoStall(async () => {
        const checked = await request(service.url, 'POST', '/api/v1/boards', nineMb, asKey());
        expectErrorBody(checked, { statusCode: 422, error: 'Unprocessable Entity', field: 'initial_objects.0.data.question' });
        const refused = await request(service.url, 'POST', '/api/v1/boards', elevenMb, asKey());
        expectErrorBody(refused, { statusCode: 413, error: 'Payload Too Large', path: '/api/v1/boards' });
      });
    }, 90_000);

    it('refuses a body of a million values with 400 before parsing it, and /health is never blocked over 100 ms meanwhile', async () => {
      // Ten megabytes of `0,` are about five million values: seconds of parsing on the event loop.
      const values = `{"title":"t","external_data":{"n":[${'0,'.repeat(4_900_000)}0]}}`;
      await expectNoStall(async () => {
        const res = await request(service.url, 'POST', '/api/v1/boards', values, asKey());
        expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field: '(body)' });
        expect(res.body.details[0].message).toBe('holds more than 100000 values');
      });
    }, 90_000);

    it('stores a 9 MB body and reads it back intact, and /health is never blocked over 100 ms meanwhile', async () => {
      await expectNoStall(async () => {
        const created = await request(service.url, 'POST', '/api/v1/boards', boardWithString(9 * MB), asKey());
        expect(created.status).toBe(201);
        const read = await fetch(`${service.url}/api/v1/boards/${created.body.board_uuid}?includeObjects=false`, { headers: asKey() });
        expect(((await read.json()) as { external_data: { blob: string } }).external_data.blob).toBe('x'.repeat(9 * MB));
        // Every other request on that board reads its row without the 9 MB (LARGE_BOARD_COLUMNS).
        const object = await request(service.url, 'POST', `/api/v1/boards/${created.body.board_uuid}/objects`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'hi' } }, asKey());
        expect(object.status).toBe(201);
      });
    }, 90_000);
  });

  it("keeps an object's data within what its live document accepts: one string may fill the value, the value stays within 1 MiB", async () => {
    const board = (await server.api('POST', '/boards', { title: 'Document bounds' })).body.board_uuid as string;
    const long = await server.api('POST', `/boards/${board}/objects`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'y'.repeat(500_000) } });
    expect(long.status).toBe(201);
    expect((await server.api('GET', `/boards/${board}/objects/${long.body.id}`)).body.data.text).toHaveLength(500_000);
    const tooBig = await server.api('POST', `/boards/${board}/objects`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'y'.repeat(MB) } });
    expectErrorBody(tooBig, { statusCode: 400, error: 'Bad Request', field: 'data' });
    expect(tooBig.body.details[0].message).toBe('is larger than 1048576 bytes as JSON');
  });
});

/** The two oversized uploads of the issue: 11 MB of JSON to `POST /boards`, a 12 MB bundle to `POST /components/publish`. */
const UPLOADS = {
  json: { path: '/api/v1/boards', bytes: 11 * MB },
  multipart: { path: '/api/v1/components/publish', bytes: 12 * MB },
} as const;

describe('an oversized body is answered 413 with the error body, never a reset', () => {
  /** A multipart form holding one `bundle` of `bytes` bytes, and the API key as the form field. */
  const form = (bytes: number) => {
    const body = new FormData();
    body.append('apiKey', server.apiKey);
    body.append('bundle', new Blob([new Uint8Array(bytes)]), 'bundle.zip');
    return body;
  };
  /** The answer, as a client that reads it only once its upload is through sees it (startSlowUplinkProxy). */
  const throughSlowUplink = async <T>(bytes: number, call: (url: string) => Promise<T>): Promise<T> => {
    const proxy = await startSlowUplinkProxy(server.url, bytes);
    try {
      return await call(proxy.url);
    } finally {
      await proxy.close();
    }
  };

  it("Node's fetch gets 413 for 11 MB of JSON to POST /boards and for a 12 MB bundle to POST /components/publish", async () => {
    const { json, multipart } = UPLOADS;
    const refusedJson = await throughSlowUplink(json.bytes, (url) => request(url, 'POST', json.path, boardWithString(json.bytes), asOrganization()));
    expectErrorBody(refusedJson, { statusCode: 413, error: 'Payload Too Large', path: json.path });
    const refusedBundle = await throughSlowUplink(multipart.bytes, async (url) => {
      const response = await fetch(`${url}${multipart.path}`, { method: 'POST', body: form(multipart.bytes) });
      return { status: response.status, headers: response.headers, body: await response.json() };
    });
    expectErrorBody(refusedBundle, { statusCode: 413, error: 'Payload Too Large', path: multipart.path });
  }, 60_000);

  /** curl's exit code, complaints and answer (`Expect:` off: the proxy would hold its interim 100 too). */
  const curl = (args: string[]) =>
    new Promise<{ exitCode: number | null; stderr: string; answer: ApiResponse }>((resolve) => {
      const output = join(scratch, `curl-${randomBytes(4).toString('hex')}`);
      const child = spawn('curl', ['--silent', '--show-error', '--header', 'Expect:', '--output', output, '--write-out', '%{http_code}', ...args]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (exitCode) => {
        const text = existsSync(output) ? readFileSync(output, 'utf8') : '';
        resolve({ exitCode, stderr, answer: { status: Number(stdout), headers: new Headers(), body: text ? JSON.parse(text) : null } });
      });
    });

  it('curl gets 413 for 11 MB of JSON to POST /boards and for a 12 MB bundle to POST /components/publish', async () => {
    const { json, multipart } = UPLOADS;
    const jsonFile = join(scratch, 'eleven.json');
    writeFileSync(jsonFile, boardWithString(json.bytes));
    const bundleFile = join(scratch, 'twelve.zip');
    writeFileSync(bundleFile, new Uint8Array(multipart.bytes));
    const calls: Array<[typeof json | typeof multipart, string[]]> = [
      [json, ['--header', `x-api-key: ${server.apiKey}`, '--header', 'content-type: application/json', '--data-binary', `@${jsonFile}`]],
      [multipart, ['--form', `apiKey=${server.apiKey}`, '--form', `bundle=@${bundleFile}`]],
    ];
    for (const [{ path, bytes }, args] of calls) {
      const { exitCode, stderr, answer } = await throughSlowUplink(bytes, (url) => curl([...args, `${url}${path}`]));
      expect({ exitCode, stderr }, path).toEqual({ exitCode: 0, stderr: '' });
      expectErrorBody(answer, { statusCode: 413, error: 'Payload Too Large', path });
    }
  }, 60_000);

  it.each(Object.entries(UPLOADS))('%s: answers while the client is still sending, reads the rest, then closes the connection cleanly', async (kind, { path, bytes }) => {
    const raw = await RawClient.open(server.url);
    const type = kind === 'json' ? 'application/json' : 'multipart/form-data; boundary=b';
    raw.send(`POST ${path} HTTP/1.1\r\nHost: test\r\nX-API-Key: ${server.apiKey}\r\nContent-Type: ${type}\r\nContent-Length: ${bytes}\r\n\r\n`);
    raw.send(Buffer.alloc(64 * 1024, 0x20));
    // Only 64 KB of the body are sent: the answer must come now, not once the rest has arrived.
    const answer = await raw.answer();
    expect(answer.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.head).toMatch(/\r\nConnection: close\r\n/i);
    expectErrorBody({ status: 413, headers: new Headers(), body: JSON.parse(answer.body) }, { statusCode: 413, error: 'Payload Too Large', path });
    // The rest is read (every write goes through), and only then does the server end the connection, without a reset.
    await raw.sendAll(Buffer.alloc(bytes - 64 * 1024, 0x20));
    expect(await raw.closed()).toEqual({ endedByServer: true, error: null });
  }, 60_000);
});

/** A raw HTTP/1.1 client on one socket: it sends what it is told, when it is told. */
class RawClient {
  private received = Buffer.alloc(0);
  private error: Error | null = null;
  private endedByServer = false;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    socket.on('end', () => {
      this.endedByServer = true;
      this.wake();
    });
    socket.on('error', (error) => {
      this.error = error;
      this.wake();
    });
    socket.on('close', () => this.wake());
  }

  static open(url: string): Promise<RawClient> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  send(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Writes all of `data`, as fast as the server reads it; rejects if the connection breaks first. */
  async sendAll(data: Buffer): Promise<void> {
    for (let offset = 0; offset < data.length; offset += 256 * 1024) {
      if (this.error) throw this.error;
      const drained = this.socket.write(data.subarray(offset, offset + 256 * 1024));
      if (!drained) await this.until(() => this.socket.writableLength === 0 || this.error !== null || this.socket.destroyed);
    }
    if (this.error) throw this.error;
  }

  /** The first answer: its head, and its body as `Content-Length` gives it. */
  async answer(): Promise<{ head: string; body: string }> {
    const whole = () => {
      const end = this.received.indexOf('\r\n\r\n');
      if (end === -1) return null;
      const head = this.received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      return this.received.length >= end + 4 + length ? { head: `${head}\r\n`, body: this.received.subarray(end + 4, end + 4 + length).toString('utf8') } : null;
    };
    await this.until(() => whole() !== null || this.error !== null || this.socket.destroyed, 10_000);
    const answer = whole();
    if (!answer) throw new Error(`no whole answer while the body was still being sent (${this.error?.message ?? 'connection closed'})`);
    return answer;
  }

  /** How the connection ended: by the server's FIN, and without an error (a reset). */
  async closed(): Promise<{ endedByServer: boolean; error: string | null }> {
    await this.until(() => this.endedByServer || this.error !== null || this.socket.destroyed, 10_000);
    this.socket.destroy();
    return { endedByServer: this.endedByServer, error: this.error ? ((this.error as NodeJS.ErrnoException).code ?? this.error.message) : null };
  }

  private wake(): void {
    this.waiters.forEach((wake) => wake());
  }

  /** Resolves once `done()` holds, checked whenever the socket reports something; with a deadline, fails past it. */
  private until(done: () => boolean, deadlineMs?: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = deadlineMs === undefined ? undefined : setTimeout(() => finish(new Error(`nothing happened within ${deadlineMs} ms`)), deadlineMs);
      const check = () => {
        if (done()) finish();
      };
      const finish = (error?: Error) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        this.socket.off('drain', check);
        if (error) reject(error);
        else resolve();
      };
      this.waiters.add(check);
      this.socket.on('drain', check);
      check();
    });
  }
}
