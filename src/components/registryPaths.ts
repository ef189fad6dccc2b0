/** A component name: lowercase letters and digits in hyphen-separated runs (the manifest's rule). */
export const COMPONENT_NAME = '[a-z0-9]+(?:-[a-z0-9]+)*';

/** `<name>@<version>` as a file URL carries it, the version exact (semver) or `latest`. */
export const FILE_SPEC = new RegExp(`^(${COMPONENT_NAME})@([0-9A-Za-z.+-]{1,64})$`);

/** A component of this registry named by a URL. */
export interface RegistryReference {
  name: string;
  version: string;
}

/** Any `<name>@<version>` segment on a registry path: a version the file route would not even parse is still ours to refuse. */
const FILES_PATH = new RegExp(`^/(?:api/v1/)?components/files/(${COMPONENT_NAME})@([^/]+)(?:/|$)`);

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
