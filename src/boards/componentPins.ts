/** What boards need from the component registry: whether a pinned `name@version` may be used. */
export interface ComponentPins {
  /** Why `name@version` (`version` may be `latest`) cannot be pinned, or null when it is published and not deleted. */
  pinProblem(name: string, version: string): Promise<string | null>;
  /** Origins that serve this registry's files (`COMPONENTS_URL`, `APP_URL`). */
  origins(): string[];
}

/** A component of this registry named by a board's `config.components[]` entry. */
export interface RegistryReference {
  name: string;
  version: string;
}

const FILES_PATH = /^\/(?:api\/v1\/)?components\/files\/([a-z0-9]+(?:-[a-z0-9]+)*)@([^/]+)(?:\/|$)/;

/**
 * The registry component an entry's `url` names — a path `/components/files/<name>@<version>/…`
 * relative, or on one of the registry's own origins — or null for a URL of anywhere else. The
 * entry's `version`, when given, pins a `latest` URL to that version and must agree with an exact one.
 */
export function registryReference(url: string, version: string | undefined, origins: string[]): RegistryReference | { problem: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url, 'https://registry.invalid');
  } catch {
    return null;
  }
  const ours = parsed.origin === 'https://registry.invalid' || origins.includes(parsed.origin);
  const match = ours ? FILES_PATH.exec(parsed.pathname) : null;
  if (!match) return null;
  const [, name, named] = match as unknown as [string, string, string];
  if (version !== undefined && named !== 'latest' && version !== named) return { problem: `names ${name}@${named} but its version says ${version}` };
  return { name, version: named === 'latest' && version !== undefined ? version : named };
}
