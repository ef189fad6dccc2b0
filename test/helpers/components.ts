import { randomUUID } from 'node:crypto';
import type { TestServer } from './testServer.js';
import { manifestJson, zipOf } from './zipBuilder.js';

/** A component name no other test uses. */
export const uniqueComponentName = (prefix = 'widget') => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Publishes a minimal component (manifest + index.html) as the test organization; answers the publish body. */
export async function publishComponent(server: TestServer, name: string, version: string): Promise<{ url: string; assetsBaseUrl: string }> {
  const zip = await zipOf([
    { name: 'manifest.json', content: manifestJson({ name, version }) },
    { name: 'index.html', content: `<!doctype html><p>${name}@${version}</p>` },
  ]);
  const form = new FormData();
  form.append('bundle', new Blob([new Uint8Array(zip)]), `${name}.zip`);
  form.append('apiKey', server.apiKey);
  const response = await fetch(`${server.url}/api/v1/components/publish`, { method: 'POST', body: form });
  const body = (await response.json()) as { component: { url: string; assetsBaseUrl: string } };
  if (response.status !== 200) throw new Error(`publish of ${name}@${version} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.component;
}
