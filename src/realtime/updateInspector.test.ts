import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { inspectUpdate, touchedObjects } from './updateInspector.js';

/** A server document with objects a and b, and a client replica of it. */
function setup() {
  const server = new Y.Doc();
  const objects = server.getMap<Y.Map<unknown>>('objects');
  for (const id of ['a', 'b']) objects.set(id, new Y.Map<unknown>([['id', id], ['type', 't'], ['position', { x: 1, y: 1 }], ['data', {}]]));
  const client = new Y.Doc();
  Y.applyUpdate(client, Y.encodeStateAsUpdate(server));
  const updates: Uint8Array[] = [];
  client.on('update', (update: Uint8Array) => updates.push(update));
  const last = () => (updates.length === 1 ? updates[0]! : Y.mergeUpdates(updates.splice(0)));
  return { server, client, clientObjects: client.getMap<Y.Map<unknown>>('objects'), last };
}

describe('touchedObjects', () => {
  it('finds a new object and the position it is given', () => {
    const { server, clientObjects, last } = setup();
    clientObjects.set('c', new Y.Map<unknown>([['id', 'c'], ['position', { x: 50, y: 60 }]]));
    expect([...touchedObjects(server, last()).values()]).toEqual([{ id: 'c', deleted: false, position: { x: 50, y: 60 } }]);
  });

  it('places a field change through its neighbour when the update writes no parent', () => {
    const { server, clientObjects, last } = setup();
    clientObjects.get('b')!.set('position', { x: 9, y: 8 });
    expect([...touchedObjects(server, last()).values()]).toEqual([{ id: 'b', deleted: false, position: { x: 9, y: 8 } }]);
  });

  it('reports a change of another field without a position', () => {
    const { server, clientObjects, last } = setup();
    clientObjects.get('a')!.set('data', { text: 'hello' });
    expect([...touchedObjects(server, last()).values()]).toEqual([{ id: 'a', deleted: false }]);
  });

  it('tells a removed object from a removed field', () => {
    const { server, clientObjects, last } = setup();
    clientObjects.delete('a');
    clientObjects.get('b')!.delete('data');
    const touched = touchedObjects(server, last());
    expect(touched.get('a')).toEqual({ id: 'a', deleted: true });
    expect(touched.get('b')).toEqual({ id: 'b', deleted: false });
  });

  it('ignores changes outside the objects map', () => {
    const { server, client, last } = setup();
    client.getMap('meta').set('title', 'x');
    client.getText('notes').insert(0, 'hello');
    expect(touchedObjects(server, last()).size).toBe(0);
  });

  it('reports setting and removing the locked field of an object, and nothing else as a lock write', () => {
    const { server, client, clientObjects, last } = setup();
    clientObjects.get('a')!.set('locked', true);
    expect(touchedObjects(server, last()).get('a')).toEqual({ id: 'a', deleted: false, writesLock: true });
    Y.applyUpdate(server, last());
    clientObjects.get('a')!.delete('locked');
    clientObjects.get('b')!.set('data', { locked: true });
    const touched = touchedObjects(server, Y.encodeStateAsUpdate(client, Y.encodeStateVector(server)));
    expect(touched.get('a')).toEqual({ id: 'a', deleted: false, writesLock: true });
    expect(touched.get('b')).toEqual({ id: 'b', deleted: false });
  });

  it('reports a new object holding the locked field, as a Y.Map or a plain value', () => {
    const { server, clientObjects, last } = setup();
    clientObjects.set('c', new Y.Map<unknown>([['id', 'c'], ['position', { x: 5, y: 5 }], ['locked', false]]));
    clientObjects.set('d', { id: 'd', position: { x: 6, y: 6 }, locked: true } as never);
    const touched = touchedObjects(server, last());
    expect(touched.get('c')).toEqual({ id: 'c', deleted: false, position: { x: 5, y: 5 }, writesLock: true });
    expect(touched.get('d')).toEqual({ id: 'd', deleted: false, position: { x: 6, y: 6 }, writesLock: true });
  });

  it('does not count removing a whole locked object as a lock write', () => {
    const { server, client, clientObjects, last } = setup();
    clientObjects.get('a')!.set('locked', true);
    Y.applyUpdate(server, last());
    clientObjects.delete('a');
    expect(touchedObjects(server, Y.encodeStateAsUpdate(client, Y.encodeStateVector(server))).get('a')).toEqual({ id: 'a', deleted: true });
  });

  it('touches every object of a multi-object transaction once', () => {
    const { server, client, clientObjects, last } = setup();
    client.transact(() => {
      clientObjects.get('a')!.set('position', { x: 2, y: 2 });
      clientObjects.get('b')!.set('position', { x: 3, y: 3 });
      clientObjects.get('b')!.set('data', { n: 1 });
    });
    const touched = touchedObjects(server, last());
    expect([...touched.keys()].sort()).toEqual(['a', 'b']);
    expect(touched.get('b')!.position).toEqual({ x: 3, y: 3 });
  });
});

/** `{a: {a: … 'x'}}`, `depth` objects deep, built without recursion. */
function deepValue(depth: number): Record<string, unknown> {
  let value: unknown = 'x';
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value as Record<string, unknown>;
}

/** Nests `count` Y.Maps under `map[key]`, each under the key `a`, in the current transaction. */
function nestMaps(map: Y.Map<unknown>, key: string, count: number): void {
  let parent = map;
  let name = key;
  for (let level = 0; level < count; level += 1) {
    const child = new Y.Map<unknown>();
    parent.set(name, child);
    parent = child;
    name = 'a';
  }
}

describe('inspectUpdate', () => {
  it('finds a value nested beyond the bounds in an object field and names the field', () => {
    const { server, clientObjects, last } = setup();
    clientObjects.get('a')!.set('data', deepValue(40));
    const { touched, outOfBounds, nestsTypesTooDeep } = inspectUpdate(server, last());
    expect([...touched.keys()]).toEqual(['a']);
    expect(nestsTypesTooDeep).toBe(false);
    expect(outOfBounds).toHaveLength(1);
    expect(outOfBounds[0]).toMatchObject({ objectId: 'a', violation: { field: 'data', message: 'nests deeper than 32 levels' } });
  });

  it('takes a value nested exactly to the bound', () => {
    const { server, clientObjects, last } = setup();
    clientObjects.get('a')!.set('data', deepValue(32));
    expect(inspectUpdate(server, last()).outOfBounds).toEqual([]);
  });

  it('finds values beyond the bounds outside the objects map, named by their root', () => {
    const { server, client, last } = setup();
    client.transact(() => {
      client.getMap('meta').set('title', deepValue(40));
      client.getArray('list').push([{ text: 'x'.repeat(1_100_000) }]);
    });
    const { touched, outOfBounds } = inspectUpdate(server, last());
    expect(touched.size).toBe(0);
    expect(outOfBounds.map(({ objectId, violation }) => [objectId, violation.field.split('.').slice(0, 2).join('.')]).sort()).toEqual([
      [null, 'list'], // a value over 1 MB is named where the walk finds it too large
      [null, 'meta.title'],
    ]);
  });

  it('places the items of a chain of 20,000 nested types without exhausting the stack, and flags the chain', () => {
    const { server, client, clientObjects, last } = setup();
    client.transact(() => nestMaps(clientObjects.get('a')!, 'data', 20_000));
    const { touched, nestsTypesTooDeep } = inspectUpdate(server, last());
    expect([...touched.keys()]).toEqual(['a']);
    expect(nestsTypesTooDeep).toBe(true);
  });

  it('lets types nest 32 levels below an object, not 33', () => {
    const { server, client, clientObjects, last } = setup();
    client.transact(() => nestMaps(clientObjects.get('a')!, 'data', 32));
    expect(inspectUpdate(server, last()).nestsTypesTooDeep).toBe(false);
    client.transact(() => nestMaps(clientObjects.get('b')!, 'data', 33));
    expect(inspectUpdate(server, last()).nestsTypesTooDeep).toBe(true);
  });

  it('throws RangeError for a value too deep for lib0 to decode', () => {
    const { server, clientObjects, last } = setup();
    const placeholder = 'placeholder-for-a-deep-value';
    clientObjects.get('a')!.set('data', placeholder);
    const update = Buffer.from(last());
    const marker = Buffer.concat([Buffer.from([119, placeholder.length]), Buffer.from(placeholder)]);
    const at = update.indexOf(marker);
    // lib0 writeAny: 118 = an object (then its key count, and each key as a string), 119 = a string.
    const deep = Buffer.concat([Buffer.alloc(100_000 * 4).fill(Buffer.from([118, 1, 1, 0x61])), Buffer.from([119, 1, 0x78])]);
    const hostile = Buffer.concat([update.subarray(0, at), deep, update.subarray(at + marker.length)]);
    expect(() => inspectUpdate(server, new Uint8Array(hostile))).toThrow(RangeError);
  });
});
