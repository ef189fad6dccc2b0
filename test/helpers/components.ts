import { randomUUID } from 'node:crypto';
import type { TestServer } from './testServer.js';
import { manifestJson, zipOf, type ZipFileSpec } from './zipBuilder.js';

/** A component name no other test uses. */
export const uniqueComponentName = (prefix = 'widget') => `${prefix}-${randomUUID().slice(0, 8)}`;

/** What to publish beyond a minimal component: manifest fields and files other than manifest.json. */
export interface ComponentContents {
  /** Merged over the minimal manifest (name, version, title, description, entry `index.html`). */
  manifest?: Record<string, unknown>;
  /** The package's files besides manifest.json; default one `index.html` naming the component. */
  files?: ZipFileSpec[];
  /** Publish as this organization's key (default the test organization's). */
  apiKey?: string;
}

/** Publishes a component (by default manifest + index.html) and answers the publish body's `component`. */
export async function publishComponent(server: TestServer, name: string, version: string, contents: ComponentContents = {}): Promise<{ url: string; assetsBaseUrl: string }> {
  const files = contents.files ?? [{ name: 'index.html', content: `<!doctype html><p>${name}@${version}</p>` }];
  const zip = await zipOf([{ name: 'manifest.json', content: manifestJson({ name, version, ...contents.manifest }) }, ...files]);
  const form = new FormData();
  form.append('bundle', new Blob([new Uint8Array(zip)]), `${name}.zip`);
  form.append('apiKey', contents.apiKey ?? server.apiKey);
  const response = await fetch(`${server.url}/api/v1/components/publish`, { method: 'POST', body: form });
  const body = (await response.json()) as { component: { url: string; assetsBaseUrl: string } };
  if (response.status !== 200) throw new Error(`publish of ${name}@${version} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.component;
}

/** Where and how large a component object is placed (default at 10,10, the manifest's default size 300×200). */
export interface ComponentPlacement {
  position?: { x: number; y: number };
  props?: Record<string, unknown>;
  width?: number;
  height?: number;
}

/** Places an object running the component at `url` on a board, as the test organization; answers the object's id. */
export async function placeComponent(server: TestServer, boardId: string, url: string, placement: ComponentPlacement = {}): Promise<string> {
  const { position = { x: 10, y: 10 }, props = {}, width = 300, height = 200 } = placement;
  const created = await server.api('POST', `/boards/${boardId}/objects`, { type: 'external-component', data: { componentUrl: url, props }, position, width, height });
  if (created.status !== 201) throw new Error(`placing ${url} answered ${created.status}: ${JSON.stringify(created.body)}`);
  return (created.body as { id: string }).id;
}
