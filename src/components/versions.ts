import semver from 'semver';

/** A version as the registry keeps it. */
export interface VersionRecord {
  version: string;
  deprecated: boolean;
  deprecationMessage: string | null;
  deletedAt: Date | null;
}

/** The version `latest` names: the highest release neither deleted nor deprecated, else the highest left. */
export function latestOf(versions: VersionRecord[]): string | null {
  const alive = versions.filter((row) => !row.deletedAt);
  const pick = (rows: VersionRecord[]) => semver.rsort(rows.map((row) => row.version))[0] ?? null;
  return (
    pick(alive.filter((row) => !row.deprecated && semver.prerelease(row.version) === null)) ??
    pick(alive.filter((row) => semver.prerelease(row.version) === null)) ??
    pick(alive)
  );
}

