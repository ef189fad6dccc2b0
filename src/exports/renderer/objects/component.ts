import { COMPONENT_NAME } from '../../../components/registryPaths.js';
import type { Draw } from '../drawContext.js';
import { labelledBox } from './unknown.js';

/** `<name>@<version>` on a registry file path (`/components/files/…`, or under `/api/v1`), on any origin. */
const REGISTRY_FILE = new RegExp(`/components/files/(${COMPONENT_NAME})@([0-9A-Za-z.+-]{1,64})(?:/|$)`);
/** As much of a URL from elsewhere as the client's "Component unavailable" card shows. */
const URL_LIMIT = 200;

/**
 * `external-component`: the page runs it in a frame, which no export can. Its box is drawn as
 * the client draws it under the frame, naming the component (`name@version`, or the URL of
 * one hosted elsewhere).
 */
export const drawComponent: Draw = (object, context) => labelledBox(object, object.type, componentName(object.data.componentUrl), context);

function componentName(url: unknown): string {
  if (typeof url !== 'string' || url === '') return '(no componentUrl)';
  let path: string;
  try {
    path = new URL(url, 'https://registry.invalid').pathname;
  } catch {
    path = '';
  }
  const match = REGISTRY_FILE.exec(path);
  if (match) return `${match[1]}@${match[2]}`;
  return url.length > URL_LIMIT ? `${url.slice(0, URL_LIMIT)}…` : url;
}
