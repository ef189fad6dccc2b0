import * as Y from 'yjs';
import { FREE_JSON_LIMITS } from '../util/jsonBounds.js';

/**
 * What a board document may hold, seen from its Yjs items. lib0 writes and reads JSON values
 * (`ContentAny`) recursively, and Yjs deletes, garbage-collects and reads nested types
 * recursively: a value or a chain of types thousands of levels deep exhausts the stack of
 * whoever touches it next. Values are bounded like every free-form JSON value
 * (util/jsonBounds.ts); nested types may go FREE_JSON_LIMITS.maxDepth levels below an object.
 */

/**
 * Most levels of nested Yjs types under a root type: an object of the `objects` map is level
 * 1, a Y.Map in one of its fields level 2, and so on.
 */
export const MAX_TYPE_LEVEL = FREE_JSON_LIMITS.maxDepth + 1;

/** The JSON values an item's content carries (written with lib0's writeAny or as JSON), or null. */
export function jsonValuesOf(content: Y.Item['content']): unknown[] | null {
  if (content instanceof Y.ContentAny) return content.arr as unknown[];
  if (content instanceof Y.ContentJSON) return content.arr as unknown[];
  if (content instanceof Y.ContentEmbed) return [content.embed];
  if (content instanceof Y.ContentFormat) return [content.value];
  if (content instanceof Y.ContentDoc) return [content.opts as unknown];
  return null;
}

/** True when `value` nests objects and arrays more than `maxDepth` levels deep (`{}` is one). */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  // Iterative, so a value of any depth is measured without touching the stack.
  const pending: Array<{ value: object; depth: number }> = [{ value, depth: 1 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (depth > maxDepth) return true;
    for (const child of (Array.isArray(current) ? current : Object.values(current)) as unknown[]) {
      if (child !== null && typeof child === 'object') pending.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}

/** The level of a type (see MAX_TYPE_LEVEL), walking up iteratively; `levels` caches it per type. */
function typeLevel(type: Y.AbstractType<unknown>, levels: Map<Y.AbstractType<unknown>, number>): number {
  const chain: Y.AbstractType<unknown>[] = [];
  let current: Y.AbstractType<unknown> | null = type;
  let base = 0;
  while (current?._item) {
    const known = levels.get(current);
    if (known !== undefined) {
      base = known;
      break;
    }
    chain.push(current);
    const parent: unknown = current._item.parent;
    current = parent instanceof Y.AbstractType ? parent : null;
  }
  for (let index = chain.length - 1; index >= 0; index -= 1) levels.set(chain[index]!, (base += 1));
  return base;
}

/**
 * The live items of a document whose content lies beyond the bounds that keep it readable:
 * a JSON value nested deeper than FREE_JSON_LIMITS.maxDepth, or a type deeper than
 * MAX_TYPE_LEVEL (only the outermost such type: deleting it deletes what it holds). Other
 * bounds (sizes, odd strings) are the edge's business: stored content that breaks only
 * those still loads and is kept.
 */
export function itemsOutOfBounds(doc: Y.Doc): Y.Item[] {
  const found: Y.Item[] = [];
  const levels = new Map<Y.AbstractType<unknown>, number>();
  for (const structs of doc.store.clients.values()) {
    for (const struct of structs) {
      if (!(struct instanceof Y.Item) || struct.deleted) continue;
      const parent: unknown = struct.parent;
      const parentLevel = parent instanceof Y.AbstractType ? typeLevel(parent, levels) : 0;
      if (parentLevel <= MAX_TYPE_LEVEL && isOutOfBounds(struct.content, parentLevel)) found.push(struct);
    }
  }
  return found;
}

/** Whether content placed in a type at `parentLevel` breaks the bounds. */
function isOutOfBounds(content: Y.Item['content'], parentLevel: number): boolean {
  if (content instanceof Y.ContentType) return parentLevel + 1 > MAX_TYPE_LEVEL;
  return jsonValuesOf(content)?.some((value) => nestsDeeperThan(value, FREE_JSON_LIMITS.maxDepth)) ?? false;
}

/**
 * Deletes every item of `doc` beyond the bounds in one transaction, so Yjs garbage-collects
 * their content before anything encodes the document again; structs still waiting for a
 * missing dependency are dropped when they hold such content. Returns how many were removed.
 * Deleting a deep chain of types recurses through it: run this where the stack is large
 * enough for what the document holds (documentRepair.ts).
 */
export function removeOutOfBounds(doc: Y.Doc): number {
  const items = itemsOutOfBounds(doc);
  if (items.length > 0) doc.transact((transaction) => items.forEach((item) => item.delete(transaction)));
  return items.length + dropPendingOutOfBounds(doc);
}

function dropPendingOutOfBounds(doc: Y.Doc): number {
  const pending = doc.store.pendingStructs;
  if (!pending) return 0;
  // Their place is unknown until what they wait for arrives: only their values are judged.
  const waiting = Y.decodeUpdateV2(pending.update).structs.filter(
    (struct) => struct instanceof Y.Item && !(struct.content instanceof Y.ContentType) && isOutOfBounds(struct.content, 0),
  );
  if (waiting.length === 0) return 0;
  // They wait for structs that never came; nothing of the document refers to them.
  doc.store.pendingStructs = null;
  return waiting.length;
}
