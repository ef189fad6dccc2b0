import safeRegex from 'safe-regex2';

/**
 * Screens the regular expressions of untrusted JSON schemas (`pattern`, `patternProperties`
 * keys) for catastrophic backtracking before ajv ever runs them on data.
 *
 * safe-regex2 refuses nested quantifiers (star height above one) and long chains of them.
 * It does not see ambiguity at star height one, which is just as bad: `^(a|a)*$` is
 * exponential and `^\d+\d+x$` or an unanchored `\d+x` are polynomial. The small parser
 * below finds those two shapes, conservatively (it may refuse a pattern that is in fact
 * safe, never the other way round):
 * - a repeated group whose alternatives can start with the same character;
 * - two large repetitions in sequence that can consume the same characters, with nothing
 *   mandatory between them that the first cannot also consume. A pattern that does not
 *   start with `^` counts as starting with `[\s\S]*` (the engine retries at every offset).
 */

/** Longest pattern accepted: keeps the analysis and ajv's compiled code small. */
export const MAX_PATTERN_LENGTH = 1_000;
/** A repetition allowing more than this many rounds counts as large (unbounded for timing). */
const LARGE_REPETITION = 100;

/** Code points: the listed ranges, or everything except them when `negated`. */
interface CharSet {
  ranges: Array<[number, number]>;
  negated: boolean;
}

type Node =
  | { kind: 'char'; set: CharSet }
  | { kind: 'group'; alternatives: Node[][]; lookaround: boolean }
  | { kind: 'repeat'; body: Node; min: number; max: number }
  | { kind: 'assertion'; caret: boolean }
  | { kind: 'backreference' };

const ANY: CharSet = { ranges: [], negated: true };
const NONE: CharSet = { ranges: [], negated: false };
const DIGITS: Array<[number, number]> = [[48, 57]];
const WORD: Array<[number, number]> = [[48, 57], [65, 90], [95, 95], [97, 122]];
const SPACE: Array<[number, number]> = [
  [9, 13], [32, 32], [160, 160], [5760, 5760], [8192, 8202], [8232, 8233], [8239, 8239], [8287, 8287], [12288, 12288], [65279, 65279],
];
const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, '0': 0 };

/** Why a pattern may not be used, or null when it is safe to run on bounded strings. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'is not a valid regular expression';
  }
  if (!safeRegex(pattern)) return 'may backtrack catastrophically (nested or too many quantifiers)';
  let alternatives: Node[][];
  try {
    alternatives = new Parser(pattern).parse();
  } catch {
    return 'cannot be analysed for catastrophic backtracking';
  }
  if (contains(alternatives, (node) => node.kind === 'backreference')) return 'uses a backreference, which is not supported';
  if (contains(alternatives, (node) => node.kind === 'repeat' && node.max > 1 && hasAmbiguousAlternation(node.body))) {
    return 'may backtrack catastrophically (a repeated group has alternatives that can match the same text)';
  }
  const anchored = alternatives.every((items) => items[0]?.kind === 'assertion' && items[0].caret);
  const prefix: Node = { kind: 'repeat', body: { kind: 'char', set: ANY }, min: 0, max: Infinity };
  const top = anchored ? alternatives : alternatives.map((items) => [prefix, ...items]);
  const sequences = [...top, ...groupsOf(alternatives).flatMap((group) => group.alternatives)];
  if (sequences.some(hasOverlappingRepetitions)) {
    return anchored
      ? 'may take polynomial time (two repetitions in a row can match the same text)'
      : 'may take polynomial time (anchor it with ^, or avoid repetitions that can match the same text)';
  }
  return null;
}

class Parser {
  private position = 0;

  constructor(private readonly source: string) {}

  parse(): Node[][] {
    const alternatives = this.disjunction();
    if (this.position !== this.source.length) throw new Error('unbalanced parenthesis');
    return alternatives;
  }

  private disjunction(): Node[][] {
    const alternatives: Node[][] = [this.alternative()];
    while (this.peek() === '|') {
      this.position += 1;
      alternatives.push(this.alternative());
    }
    return alternatives;
  }

  private alternative(): Node[] {
    const items: Node[] = [];
    while (this.position < this.source.length && this.peek() !== '|' && this.peek() !== ')') items.push(this.quantified(this.atom()));
    return items;
  }

  private atom(): Node {
    const char = this.next();
    switch (char) {
      case '^':
        return { kind: 'assertion', caret: true };
      case '$':
        return { kind: 'assertion', caret: false };
      case '.':
        return { kind: 'char', set: ANY };
      case '(':
        return this.group();
      case '[':
        return { kind: 'char', set: this.characterClass() };
      case '\\':
        return this.escape();
      default:
        return { kind: 'char', set: single(char.codePointAt(0)!) };
    }
  }

  private group(): Node {
    let lookaround = false;
    if (this.source.startsWith('?:', this.position)) this.position += 2;
    else if (/^\?<?[=!]/.test(this.source.slice(this.position, this.position + 3))) {
      lookaround = true;
      this.position += this.source[this.position + 1] === '<' ? 3 : 2;
    } else if (this.source.startsWith('?<', this.position)) this.position = this.source.indexOf('>', this.position) + 1;
    const alternatives = this.disjunction();
    if (this.next() !== ')') throw new Error('unclosed group');
    return { kind: 'group', alternatives, lookaround };
  }

  private escape(): Node {
    const char = this.peek();
    if (char === 'b' || char === 'B') {
      this.position += 1;
      return { kind: 'assertion', caret: false };
    }
    if (/[1-9]/.test(char) || char === 'k') return { kind: 'backreference' };
    return { kind: 'char', set: this.escapedSet() };
  }

  /** The set of one escape (after the backslash), inside or outside a class. */
  private escapedSet(inClass = false): CharSet {
    const char = this.next();
    const classes: Record<string, Array<[number, number]>> = { d: DIGITS, w: WORD, s: SPACE };
    const lower = char.toLowerCase();
    if (classes[lower]) return { ranges: classes[lower]!, negated: char !== lower };
    if (char === 'p' || char === 'P') {
      this.position = this.source.indexOf('}', this.position) + 1;
      return ANY;
    }
    if (inClass && char === 'b') return single(8);
    if (CONTROL_ESCAPES[char] !== undefined) return single(CONTROL_ESCAPES[char]!);
    if (char === 'c') return single(this.next().charCodeAt(0) % 32);
    if (char === 'x') return single(this.hex(2));
    if (char === 'u') {
      if (this.peek() !== '{') return single(this.hex(4));
      const end = this.source.indexOf('}', this.position);
      const code = Number.parseInt(this.source.slice(this.position + 1, end), 16);
      this.position = end + 1;
      return single(code);
    }
    return single(char.codePointAt(0)!);
  }

  private characterClass(): CharSet {
    const negated = this.peek() === '^';
    if (negated) this.position += 1;
    let members: CharSet = NONE;
    while (this.peek() !== ']') {
      if (this.position >= this.source.length) throw new Error('unclosed class');
      const from = this.classAtom();
      if (this.peek() === '-' && this.source[this.position + 1] !== ']') {
        this.position += 1;
        const to = this.classAtom();
        members = union(members, { ranges: [[from.ranges[0]![0], to.ranges[0]![1]]], negated: false });
      } else members = union(members, from);
    }
    this.position += 1;
    // A class mixing negated escapes is approximated as "anything": never less than it matches.
    if (members.negated) return ANY;
    return { ranges: members.ranges, negated };
  }

  private classAtom(): CharSet {
    const char = this.next();
    return char === '\\' ? this.escapedSet(true) : single(char.codePointAt(0)!);
  }

  private quantified(atom: Node): Node {
    const char = this.peek();
    let bounds: [number, number] | null = null;
    if (char === '*') bounds = [0, Infinity];
    else if (char === '+') bounds = [1, Infinity];
    else if (char === '?') bounds = [0, 1];
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.position));
      if (match) {
        const min = Number(match[1]);
        bounds = [min, match[2] === undefined ? min : match[3] ? Number(match[3]) : Infinity];
        this.position += match[0].length - 1;
      }
    }
    if (!bounds) return atom;
    this.position += 1;
    if (this.peek() === '?') this.position += 1;
    return { kind: 'repeat', body: atom, min: bounds[0], max: bounds[1] };
  }

  private hex(digits: number): number {
    const code = Number.parseInt(this.source.slice(this.position, this.position + digits), 16);
    this.position += digits;
    return code;
  }

  private peek(): string {
    return this.source[this.position] ?? '';
  }

  private next(): string {
    const code = this.source.codePointAt(this.position);
    if (code === undefined) throw new Error('unexpected end');
    const char = String.fromCodePoint(code);
    this.position += char.length;
    return char;
  }
}

function single(code: number): CharSet {
  return { ranges: [[code, code]], negated: false };
}

function union(a: CharSet, b: CharSet): CharSet {
  if (a.negated || b.negated) return ANY;
  const sorted = [...a.ranges, ...b.ranges].sort((x, y) => x[0] - y[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of sorted) {
    const last = merged[merged.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return { ranges: merged, negated: false };
}

function overlaps(a: CharSet, b: CharSet): boolean {
  if (a.negated && b.negated) return true;
  if (a.negated) return !covers(a.ranges, b.ranges);
  if (b.negated) return !covers(b.ranges, a.ranges);
  return a.ranges.some(([from, to]) => b.ranges.some(([other, end]) => from <= end && other <= to));
}

/** Whether `outer` covers every code point of `inner` (both merged and sorted). */
function covers(outer: Array<[number, number]>, inner: Array<[number, number]>): boolean {
  return inner.every(([from, to]) => outer.some(([start, end]) => start <= from && to <= end));
}

function nullable(node: Node): boolean {
  switch (node.kind) {
    case 'char':
      return false;
    case 'group':
      return node.lookaround || node.alternatives.some((items) => items.every(nullable));
    case 'repeat':
      return node.min === 0 || nullable(node.body);
    default:
      return true;
  }
}

/** The characters a sequence can start with. */
function firstOf(items: Node[]): CharSet {
  let set = NONE;
  for (const item of items) {
    set = union(set, first(item));
    if (!nullable(item)) break;
  }
  return set;
}

function first(node: Node): CharSet {
  switch (node.kind) {
    case 'char':
      return node.set;
    case 'group':
      return node.lookaround ? NONE : node.alternatives.map(firstOf).reduce(union, NONE);
    case 'repeat':
      return first(node.body);
    case 'backreference':
      return ANY;
    default:
      return NONE;
  }
}

/** Every character a node can consume. */
function charsOf(node: Node): CharSet {
  switch (node.kind) {
    case 'char':
      return node.set;
    case 'group':
      return node.alternatives.flat().map(charsOf).reduce(union, NONE);
    case 'repeat':
      return charsOf(node.body);
    case 'backreference':
      return ANY;
    default:
      return NONE;
  }
}

function isLarge(node: Node): boolean {
  if (node.kind === 'repeat') return node.max > LARGE_REPETITION || isLarge(node.body);
  if (node.kind === 'group') return node.alternatives.some((items) => items.some(isLarge));
  return false;
}

function hasAmbiguousAlternation(node: Node): boolean {
  return groupsOf([[node]]).some(({ alternatives }) => {
    if (alternatives.length < 2) return false;
    return alternatives.some((items, index) =>
      alternatives.slice(index + 1).some((other) => (items.every(nullable) && other.every(nullable)) || overlaps(firstOf(items), firstOf(other))),
    );
  });
}

function hasOverlappingRepetitions(items: Node[]): boolean {
  return items.some((item, index) => {
    if (!isLarge(item)) return false;
    const eaten = charsOf(item);
    for (const later of items.slice(index + 1)) {
      const laterChars = charsOf(later);
      if (isLarge(later) && overlaps(eaten, laterChars)) return true;
      // A mandatory character the first repetition cannot consume pins where it ends.
      if (!nullable(later) && !overlaps(eaten, laterChars)) return false;
    }
    return false;
  });
}

/** Every group nested anywhere in the sequences. */
function groupsOf(alternatives: Node[][]): Array<Extract<Node, { kind: 'group' }>> {
  const groups: Array<Extract<Node, { kind: 'group' }>> = [];
  const visit = (node: Node) => {
    if (node.kind === 'repeat') visit(node.body);
    if (node.kind !== 'group') return;
    groups.push(node);
    node.alternatives.flat().forEach(visit);
  };
  alternatives.flat().forEach(visit);
  return groups;
}

function contains(alternatives: Node[][], test: (node: Node) => boolean): boolean {
  const visit = (node: Node): boolean =>
    test(node) || (node.kind === 'repeat' && visit(node.body)) || (node.kind === 'group' && node.alternatives.flat().some(visit));
  return alternatives.flat().some(visit);
}
