/**
 * Agent trigger conditions: a small expression language, parsed once into an AST and evaluated by
 * an allow-listed interpreter: never eval, new Function, vm or an expression library, so a
 * condition can do nothing but compare values (docs/agents.md).
 *
 * Grammar, loosest binding first (positions in messages are 0-based UTF-16 offsets):
 *   or      := and ('||' and)*
 *   and     := compare ('&&' compare)*
 *   compare := unary (('=='|'==='|'!='|'!=='|'<'|'<='|'>'|'>=') unary)?    no chaining: a < b < c is refused
 *   unary   := '!' unary | '-' number | primary
 *   primary := number | string | true | false | null | path | '(' or ')'
 *   path    := root ('.' name | '[' string ']')*      root: event, object, participant, frame, idleSeconds
 *
 * Semantics: `==`/`===` are both strict equality (no coercion), `!=`/`!==` its negation; ordering
 * holds only between two numbers or two strings. A value "holds" only when it is exactly `true`, so
 * a bare `object.data.done` holds when it is the boolean true. `&&`, `||` and `!` work on holding:
 * `!x` holds when x does not hold (missing values included), and all three always give booleans.
 * Paths read own data properties of plain objects and arrays only: getters are never called,
 * proxies and class instances read as missing, and a missing step makes the whole path undefined.
 */
import { types } from 'node:util';

export const CONDITION_LIMITS = { maxLength: 500, maxTokens: 200, maxDepth: 20 } as const;

export const CONDITION_ROOTS = ['event', 'object', 'participant', 'frame', 'idleSeconds'] as const;
export type ConditionRoot = (typeof CONDITION_ROOTS)[number];

/** Property names that lead to prototypes; refused so a condition can never reach one. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export type CompareOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

export type ConditionNode =
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'path'; root: ConditionRoot; keys: string[] }
  | { kind: 'not'; operand: ConditionNode }
  | { kind: 'and'; operands: ConditionNode[] }
  | { kind: 'or'; operands: ConditionNode[] }
  | { kind: 'compare'; operator: CompareOperator; left: ConditionNode; right: ConditionNode };

export interface ConditionScope {
  event?: unknown;
  object?: unknown;
  participant?: unknown;
  frame?: unknown;
  idleSeconds?: unknown;
}

export class ConditionSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'ConditionSyntaxError';
  }
}

type Token =
  | { type: 'number'; value: number; position: number; text: string }
  | { type: 'string'; value: string; position: number; text: string }
  | { type: 'name'; value: string; position: number; text: string }
  | { type: 'punct'; value: string; position: number; text: string }
  | { type: 'end'; position: number; text: string };

/** Longest first, so `===` is not read as `==` followed by `=`. */
const PUNCTUATORS = ['===', '!==', '==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')', '[', ']', '.', '-'];
const ESCAPES: ReadonlyMap<string, string> = new Map([['\\', '\\'], ["'", "'"], ['"', '"'], ['n', '\n'], ['t', '\t'], ['r', '\r']]);
const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[A-Za-z0-9_$]/;
const DIGIT = /[0-9]/;

function describeCharacter(source: string, position: number): string {
  const codePoint = source.codePointAt(position) ?? 0;
  return codePoint < 0x20 || codePoint === 0x7f ? `U+${codePoint.toString(16).padStart(4, '0')}` : `'${String.fromCodePoint(codePoint)}'`;
}

function readString(source: string, start: number): { token: Token; end: number } {
  const quote = source[start];
  let value = '';
  let index = start + 1;
  while (index < source.length) {
    const char = source[index] as string;
    if (char === quote) {
      return { token: { type: 'string', value, position: start, text: source.slice(start, index + 1) }, end: index + 1 };
    }
    if (char === '\n' || char === '\r') break;
    if (char === '\\') {
      if (index + 1 === source.length) break;
      const escaped = ESCAPES.get(source[index + 1] as string);
      if (escaped === undefined) {
        throw new ConditionSyntaxError(`unknown escape ${describeCharacter(source, index + 1)} after '\\' at ${index}`, index);
      }
      value += escaped;
      index += 2;
      continue;
    }
    value += char;
    index += 1;
  }
  throw new ConditionSyntaxError(`unterminated string starting at ${start}`, start);
}

function readNumber(source: string, start: number): { token: Token; end: number } {
  let end = start;
  while (DIGIT.test(source[end] ?? '')) end += 1;
  if (source[end] === '.' && DIGIT.test(source[end + 1] ?? '')) {
    end += 1;
    while (DIGIT.test(source[end] ?? '')) end += 1;
  }
  if (NAME_PART.test(source[end] ?? '')) throw new ConditionSyntaxError(`malformed number at ${start}`, start);
  const text = source.slice(start, end);
  const value = Number(text);
  if (!Number.isFinite(value)) throw new ConditionSyntaxError(`number out of range at ${start}`, start);
  return { token: { type: 'number', value, position: start, text }, end };
}

function readName(source: string, start: number): { token: Token; end: number } {
  let end = start + 1;
  while (NAME_PART.test(source[end] ?? '')) end += 1;
  const text = source.slice(start, end);
  return { token: { type: 'name', value: text, position: start, text }, end };
}

/** Characters people try from JavaScript, refused with a message that says why. */
function refuseCharacter(source: string, position: number): never {
  const char = source[position];
  if (char === '=') throw new ConditionSyntaxError(`assignment '=' is not allowed at ${position} (compare with ==)`, position);
  if (char === '`') throw new ConditionSyntaxError(`template strings are not allowed at ${position}`, position);
  throw new ConditionSyntaxError(`unexpected character ${describeCharacter(source, position)} at ${position}`, position);
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index] as string;
    if (/\s/.test(char)) {
      index += 1;
      continue;
    }
    if (tokens.length === CONDITION_LIMITS.maxTokens) {
      throw new ConditionSyntaxError(`condition has more than ${CONDITION_LIMITS.maxTokens} tokens (at ${index})`, index);
    }
    const punctuator = PUNCTUATORS.find((candidate) => source.startsWith(candidate, index));
    let read: { token: Token; end: number };
    if (char === "'" || char === '"') read = readString(source, index);
    else if (DIGIT.test(char)) read = readNumber(source, index);
    else if (NAME_START.test(char)) read = readName(source, index);
    else if (punctuator === undefined) refuseCharacter(source, index);
    else read = { token: { type: 'punct', value: punctuator, position: index, text: punctuator }, end: index + punctuator.length };
    tokens.push(read.token);
    index = read.end;
  }
  tokens.push({ type: 'end', position: source.length, text: 'end of condition' });
  return tokens;
}

const COMPARE_OPERATORS: Readonly<Record<string, CompareOperator>> = {
  '==': '==', '===': '==', '!=': '!=', '!==': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=',
};

function isRoot(name: string): name is ConditionRoot {
  return (CONDITION_ROOTS as readonly string[]).includes(name);
}

/** Recursive descent; recursion only happens through '(' and '!', both counted against maxDepth. */
class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): ConditionNode {
    const node = this.parseOr();
    const next = this.peek();
    if (next.type !== 'end') throw this.unexpected(next);
    return node;
  }

  private parseOr(): ConditionNode {
    const operands = [this.parseAnd()];
    while (this.acceptPunct('||')) operands.push(this.parseAnd());
    return operands.length === 1 ? (operands[0] as ConditionNode) : { kind: 'or', operands };
  }

  private parseAnd(): ConditionNode {
    const operands = [this.parseCompare()];
    while (this.acceptPunct('&&')) operands.push(this.parseCompare());
    return operands.length === 1 ? (operands[0] as ConditionNode) : { kind: 'and', operands };
  }

  private parseCompare(): ConditionNode {
    const left = this.parseUnary();
    const operator = this.acceptCompareOperator();
    if (operator === undefined) return left;
    const right = this.parseUnary();
    const next = this.peek();
    if (next.type === 'punct' && COMPARE_OPERATORS[next.value] !== undefined) {
      throw new ConditionSyntaxError(`comparisons cannot be chained at ${next.position} (use && between them)`, next.position);
    }
    return { kind: 'compare', operator, left, right };
  }

  private parseUnary(): ConditionNode {
    const token = this.peek();
    if (this.acceptPunct('!')) return { kind: 'not', operand: this.nested(token, () => this.parseUnary()) };
    if (this.acceptPunct('-')) {
      const number = this.next();
      if (number.type !== 'number') {
        throw new ConditionSyntaxError(`unary minus applies only to a number, at ${token.position}`, token.position);
      }
      return { kind: 'literal', value: -number.value };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): ConditionNode {
    const token = this.next();
    if (token.type === 'number' || token.type === 'string') return { kind: 'literal', value: token.value };
    if (token.type === 'punct' && token.value === '(') {
      const inner = this.nested(token, () => this.parseOr());
      this.expectPunct(')');
      return inner;
    }
    if (token.type !== 'name') throw this.unexpected(token);
    if (token.value === 'true' || token.value === 'false') return { kind: 'literal', value: token.value === 'true' };
    if (token.value === 'null') return { kind: 'literal', value: null };
    if (!isRoot(token.value)) {
      throw new ConditionSyntaxError(
        `unknown name '${token.value}' at ${token.position} (allowed: ${CONDITION_ROOTS.join(', ')})`,
        token.position,
      );
    }
    return { kind: 'path', root: token.value, keys: this.parseKeys() };
  }

  private parseKeys(): string[] {
    const keys: string[] = [];
    for (;;) {
      let key: Token;
      if (this.acceptPunct('.')) {
        key = this.next();
        if (key.type !== 'name') throw this.unexpected(key);
      } else if (this.acceptPunct('[')) {
        key = this.next();
        if (key.type !== 'string') throw new ConditionSyntaxError(`expected a quoted property name at ${key.position}`, key.position);
        this.expectPunct(']');
      } else break;
      if (FORBIDDEN_KEYS.has(key.value)) {
        throw new ConditionSyntaxError(`property '${key.value}' is not allowed at ${key.position}`, key.position);
      }
      keys.push(key.value);
    }
    const after = this.peek();
    if (after.type === 'punct' && after.value === '(') {
      throw new ConditionSyntaxError(`function calls are not allowed at ${after.position}`, after.position);
    }
    return keys;
  }

  private nested(opener: Token, parse: () => ConditionNode): ConditionNode {
    if (this.depth === CONDITION_LIMITS.maxDepth) {
      throw new ConditionSyntaxError(`nesting deeper than ${CONDITION_LIMITS.maxDepth} at ${opener.position}`, opener.position);
    }
    this.depth += 1;
    const node = parse();
    this.depth -= 1;
    return node;
  }

  private peek(): Token {
    return this.tokens[this.index] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== 'end') this.index += 1;
    return token;
  }

  private acceptPunct(value: string): boolean {
    const token = this.peek();
    if (token.type !== 'punct' || token.value !== value) return false;
    this.index += 1;
    return true;
  }

  private acceptCompareOperator(): CompareOperator | undefined {
    const token = this.peek();
    const operator = token.type === 'punct' ? COMPARE_OPERATORS[token.value] : undefined;
    if (operator !== undefined) this.index += 1;
    return operator;
  }

  private expectPunct(value: string): void {
    const token = this.peek();
    if (this.acceptPunct(value)) return;
    throw new ConditionSyntaxError(`expected '${value}' but found ${this.describe(token)} at ${token.position}`, token.position);
  }

  private unexpected(token: Token): ConditionSyntaxError {
    return new ConditionSyntaxError(`unexpected ${this.describe(token)} at ${token.position}`, token.position);
  }

  private describe(token: Token): string {
    return token.type === 'end' ? 'end of condition' : `token '${token.text}'`;
  }
}

/** Parses a trigger condition; every refusal is a ConditionSyntaxError naming the position. */
export function parseCondition(source: string): ConditionNode {
  if (typeof source !== 'string') throw new ConditionSyntaxError('condition must be a string', 0);
  if (source.length > CONDITION_LIMITS.maxLength) {
    throw new ConditionSyntaxError(`condition is longer than ${CONDITION_LIMITS.maxLength} characters`, CONDITION_LIMITS.maxLength);
  }
  if (source.trim() === '') throw new ConditionSyntaxError('condition is empty', 0);
  return new Parser(tokenize(source)).parse();
}

function isPlainContainer(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || types.isProxy(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null || (Array.isArray(value) && prototype === Array.prototype);
}

/** The own data property `key` of a plain object or array; undefined for anything else. */
function readOwnValue(container: unknown, key: string): unknown {
  if (FORBIDDEN_KEYS.has(key) || !isPlainContainer(container)) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(container, key);
  return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined;
}

function compareValues(operator: CompareOperator, left: unknown, right: unknown): boolean {
  if (operator === '==') return left === right;
  if (operator === '!=') return left !== right;
  const comparable = (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
  if (!comparable) return false;
  if (operator === '<') return left < right;
  if (operator === '<=') return left <= right;
  if (operator === '>') return left > right;
  return left >= right;
}

/**
 * Parsed trees are at most 3 nodes deep per nesting level (or, and, compare around each
 * parenthesis), so under 70; anything deeper was built by hand and is refused before evaluation,
 * which keeps the recursion below bounded.
 */
const MAX_TREE_DEPTH = 100;

function deeperThan(node: ConditionNode, limit: number): boolean {
  if (limit === 0) return true;
  switch (node.kind) {
    case 'not':
      return deeperThan(node.operand, limit - 1);
    case 'and':
    case 'or':
      return node.operands.some((operand) => deeperThan(operand, limit - 1));
    case 'compare':
      return deeperThan(node.left, limit - 1) || deeperThan(node.right, limit - 1);
    default:
      return false;
  }
}

function valueOf(node: ConditionNode, scope: ConditionScope): unknown {
  const holds = (operand: ConditionNode) => valueOf(operand, scope) === true;
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'path':
      return node.keys.reduce<unknown>((value, key) => readOwnValue(value, key), readOwnValue(scope, node.root));
    case 'not':
      return !holds(node.operand);
    case 'and':
      return node.operands.every(holds);
    case 'or':
      return node.operands.some(holds);
    case 'compare':
      return compareValues(node.operator, valueOf(node.left, scope), valueOf(node.right, scope));
    default:
      return undefined;
  }
}

/** Whether the condition holds for this scope: its value must be exactly `true`. Never throws. */
export function evaluateCondition(node: ConditionNode, scope: ConditionScope): boolean {
  return !deeperThan(node, MAX_TREE_DEPTH) && valueOf(node, scope) === true;
}
