import { createRequire } from 'node:module';
import { lazy } from '../util/lazy.js';

/**
 * recheck (a large Scala.js bundle, about 15 MiB resident) is loaded by the first pattern
 * screened: only registering an object type with a `pattern` needs it. It is CommonJS, so
 * `require` loads it synchronously and screening stays synchronous.
 */
const recheck = lazy(() => createRequire(import.meta.url)('recheck') as typeof import('recheck'));

/** Longest pattern accepted: keeps the analysis and ajv's compiled code small. */
export const MAX_PATTERN_LENGTH = 1_000;
/**
 * How long the analysis of one pattern may take. A pattern it cannot prove safe in that time
 * is refused: registration is rare, a hung validator is not.
 */
const ANALYSIS_TIMEOUT_MS = 2_000;

/**
 * Why a regular expression of an untrusted JSON schema (`pattern`, `patternProperties` keys)
 * may not be used, or null when it is safe to run on bounded strings. recheck proves the
 * worst-case matching time linear (or flags it polynomial or exponential, with an attack
 * string), the way ajv will run it: a JavaScript RegExp with the `u` flag.
 */
export function patternProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'is not a valid regular expression';
  }
  const diagnostics = recheck().checkSync(pattern, 'u', { timeout: ANALYSIS_TIMEOUT_MS });
  switch (diagnostics.status) {
    case 'safe':
      return null;
    case 'vulnerable':
      return `may backtrack catastrophically (${diagnostics.complexity.type} time on inputs such as ${JSON.stringify(diagnostics.attack.pattern)})`;
    case 'unknown':
      return 'could not be proven safe from catastrophic backtracking';
  }
}
