import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Nothing in the repository sends a reader outside it: no source file, test, script or document
 * cites a specification or design file the repository does not hold, or an issue number. Rules
 * are stated in the project's own words, or point at a guide under docs/.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TEXT_FILE = /\.(ts|mts|mjs|js|md|sql|prisma|ya?ml|sh|conf|json|html|css)$|(^|\/)(Dockerfile|run)$/;
const OUTSIDE_REFERENCES: Array<[RegExp, string]> = [
  [/\bSPEC(\.md)?\b/, 'a specification file the repository does not hold'],
  [/\bDESIGN(\.md)?\b/, 'a design file the repository does not hold'],
  [/§/, 'a section of a document the repository does not hold'],
  [/\b[Ii]ssues? #?\d+\b|\bround of issue\b/, 'an issue number'],
];

/** Files git tracks or would track (new, not ignored), this test's own file left out. */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  const self = fileURLToPath(import.meta.url).slice(ROOT.length);
  return listed.split('\n').filter((path) => TEXT_FILE.test(path) && path !== self && path !== 'package-lock.json');
}

describe('the repository is self-contained', () => {
  it('cites no document outside it and no issue number', () => {
    const found: string[] = [];
    for (const path of repositoryFiles()) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, path), 'utf8');
      } catch {
        continue; // listed by git but deleted from the work tree
      }
      text.split('\n').forEach((line, index) => {
        for (const [pattern, what] of OUTSIDE_REFERENCES) if (pattern.test(line)) found.push(`${path}:${index + 1} cites ${what}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found).toEqual([]);
    expect(repositoryFiles().length).toBeGreaterThan(300);
  });
});
