import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { touchedObjects } from './updateInspector.js';

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
