import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONDITION_LIMITS,
  ConditionSyntaxError,
  evaluateCondition,
  parseCondition,
  type ConditionNode,
  type ConditionScope,
} from './conditions.js';

const holds = (source: string, scope: ConditionScope) => evaluateCondition(parseCondition(source), scope);

function syntaxErrorOf(source: string): ConditionSyntaxError {
  try {
    parseCondition(source);
  } catch (error) {
    if (error instanceof ConditionSyntaxError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(source)} to be refused`);
}

const sticky = { id: 'o1', type: 'sticky_note', data: { text: 'hello', points: 7, done: true } };

describe('parseCondition and evaluateCondition: typical agent conditions', () => {
  it('compares the object type and text', () => {
    const source = "object.type == 'sticky_note' && object.data.text != ''";
    expect(holds(source, { object: sticky })).toBe(true);
    expect(holds(source, { object: { ...sticky, data: { text: '' } } })).toBe(false);
    expect(holds(source, { object: { ...sticky, type: 'shape' } })).toBe(false);
  });

  it('compares the idle time in seconds', () => {
    expect(holds('idleSeconds > 120', { idleSeconds: 121 })).toBe(true);
    expect(holds('idleSeconds > 120', { idleSeconds: 120 })).toBe(false);
    expect(holds('idleSeconds > 120', {})).toBe(false);
  });

  it('combines an event type with a negated participant role', () => {
    const source = "event.type == 'object:created' || !(participant.role == 'host')";
    expect(holds(source, { event: { type: 'object:created' }, participant: { role: 'host' } })).toBe(true);
    expect(holds(source, { event: { type: 'object:updated' }, participant: { role: 'host' } })).toBe(false);
    expect(holds(source, { event: { type: 'object:updated' }, participant: { role: 'guest' } })).toBe(true);
  });

  it('orders numbers, including decimals and negatives', () => {
    expect(holds('object.data.points >= 5', { object: sticky })).toBe(true);
    expect(holds('object.data.points >= 7.5', { object: sticky })).toBe(false);
    expect(holds('frame.x > -10.25', { frame: { x: -10 } })).toBe(true);
    expect(parseCondition('-3')).toEqual({ kind: 'literal', value: -3 });
  });
});

describe('operators', () => {
  it('binds ! tighter than && and && tighter than ||', () => {
    expect(parseCondition('!event.a || event.b && event.c')).toEqual({
      kind: 'or',
      operands: [
        { kind: 'not', operand: { kind: 'path', root: 'event', keys: ['a'] } },
        { kind: 'and', operands: [{ kind: 'path', root: 'event', keys: ['b'] }, { kind: 'path', root: 'event', keys: ['c'] }] },
      ],
    });
    expect(holds('!event.a || event.b && event.c', { event: { a: true, b: true, c: false } })).toBe(false);
    expect(holds('!(event.a || event.b) && event.c', { event: { a: false, b: false, c: true } })).toBe(true);
  });

  it('treats == and === alike as strict equality, without coercion', () => {
    expect(holds("object.data.points == '7'", { object: sticky })).toBe(false);
    expect(holds('object.data.points === 7', { object: sticky })).toBe(true);
    expect(holds('object.data.points !== 7', { object: sticky })).toBe(false);
    expect(holds('object.data.missing == null', { object: sticky })).toBe(false);
    expect(holds('object.data.nothing == null', { object: { data: { nothing: null } } })).toBe(true);
    expect(holds('object.data.flag == 1', { object: { data: { flag: true } } })).toBe(false);
  });

  it('orders only two numbers or two strings', () => {
    expect(holds("object.type < 'tz'", { object: sticky })).toBe(true);
    expect(holds("object.data.points < '9'", { object: sticky })).toBe(false);
    expect(holds("object.data.points >= '0'", { object: sticky })).toBe(false);
    expect(holds('object.data.missing < 1', { object: sticky })).toBe(false);
    expect(holds('null <= 0', {})).toBe(false);
  });

  it('holds only on exactly true, and ! holds on anything else', () => {
    expect(holds('object.data.done', { object: sticky })).toBe(true);
    expect(holds('object.data.done', { object: { data: { done: 1 } } })).toBe(false);
    expect(holds('object.data.text', { object: sticky })).toBe(false);
    expect(holds('!object.data.missing', { object: sticky })).toBe(true);
    expect(holds('!object.data.text', { object: sticky })).toBe(true);
    expect(holds("object.data.text && 'x'", { object: sticky })).toBe(false);
  });

  it('parses quotes and escapes in both string styles', () => {
    expect(holds(`object.data.text == 'it\\'s "here"'`, { object: { data: { text: `it's "here"` } } })).toBe(true);
    expect(holds(`object.data.text == "say \\"hi\\" \\\\ bye"`, { object: { data: { text: 'say "hi" \\ bye' } } })).toBe(true);
    expect(holds(`object.data.text == 'a\\nb\\tc'`, { object: { data: { text: 'a\nb\tc' } } })).toBe(true);
    expect(holds(`object['data']["text"] == 'hello'`, { object: sticky })).toBe(true);
  });

  it('reads array elements and lengths as own properties', () => {
    const object = { data: { tags: ['a', 'b'] } };
    expect(holds("object.data.tags['1'] == 'b'", { object })).toBe(true);
    expect(holds('object.data.tags.length == 2', { object })).toBe(true);
  });

  it('yields undefined for missing paths and non-containers without throwing', () => {
    expect(holds("object.data.text.length == 5", { object: sticky })).toBe(false);
    expect(holds('object.a.b.c.d == null', {})).toBe(false);
    expect(holds('!object.a.b.c.d', { object: null })).toBe(true);
  });
});

describe('refusals', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['unknown root', 'process.exit', /^unknown name 'process' at 0/],
    ['global names', "globalThis.x == 1 || this.y", /^unknown name 'globalThis'/],
    ['__proto__ by dot', 'object.__proto__.polluted', /^property '__proto__' is not allowed at 7$/],
    ['__proto__ by bracket', "object['__proto__'] == null", /^property '__proto__' is not allowed at 7$/],
    ['constructor', 'object.data.constructor', /^property 'constructor' is not allowed/],
    ['prototype', "object['prototype']", /^property 'prototype' is not allowed/],
    ['a call on a root', 'object()', /^function calls are not allowed at 6$/],
    ['a call on a member', "object.data.text.includes('x')", /^function calls are not allowed at 25$/],
    ['assignment', "object.type = 'x'", /^assignment '=' is not allowed at 12/],
    ['a statement separator', 'idleSeconds > 1; idleSeconds < 2', /^unexpected character ';' at 15$/],
    ['template strings', 'object.type == `x`', /^template strings are not allowed at 15$/],
    ['computed keys', 'object[event.key]', /^expected a quoted property name at 7$/],
    ['an unmatched parenthesis', "(object.type == 'x'))", /^unexpected token '\)' at 20$/],
    ['an unclosed parenthesis', '(idleSeconds > 1', /^expected '\)' but found end of condition at 16$/],
    ['an unterminated string', "object.type == 'x", /^unterminated string starting at 15$/],
    ['an unknown escape', "object.type == '\\x'", /^unknown escape 'x'/],
    ['chained comparisons', '1 < idleSeconds < 5', /^comparisons cannot be chained at 16/],
    ['minus on a path', '-idleSeconds > 1', /^unary minus applies only to a number/],
    ['a dangling operator', 'idleSeconds >', /^unexpected end of condition at 13$/],
    ['a bare operator', '&&', /^unexpected token '&&' at 0$/],
    ['numbers glued to names', '1e3 > idleSeconds', /^malformed number at 0$/],
    ['other operators', 'idleSeconds + 1', /^unexpected character '\+' at 12$/],
    ['an empty condition', '   ', /^condition is empty$/],
  ];
  it.each(cases)('refuses %s', (_name, source, message) => {
    expect(syntaxErrorOf(source).message).toMatch(message);
  });

  it('refuses conditions over the length, token and depth limits', () => {
    const long = `object.type == '${'x'.repeat(CONDITION_LIMITS.maxLength)}'`;
    expect(syntaxErrorOf(long).message).toBe('condition is longer than 500 characters');
    const ones = (count: number) => Array.from({ length: count }, () => '1').join('||');
    expect(() => parseCondition(ones(100))).not.toThrow(); // 199 tokens
    expect(syntaxErrorOf(ones(101)).message).toBe('condition has more than 200 tokens (at 300)');

    const deep = (levels: number) => `${'('.repeat(levels)}idleSeconds > 1${')'.repeat(levels)}`;
    expect(() => parseCondition(deep(20))).not.toThrow();
    expect(syntaxErrorOf(deep(21)).message).toBe('nesting deeper than 20 at 20');
    expect(syntaxErrorOf(`${'!'.repeat(21)}object.done`).message).toBe('nesting deeper than 20 at 20');
  });
});

describe('safety', () => {
  it('never calls getters and never reads inherited properties', () => {
    let getterCalls = 0;
    const object = Object.create(null) as Record<string, unknown>;
    Object.defineProperty(object, 'type', { get: () => { getterCalls += 1; return 'sticky_note'; }, enumerable: true });
    object.data = { text: 'x' };
    expect(holds("object.type == 'sticky_note'", { object })).toBe(false);
    expect(holds("object.data.text == 'x'", { object })).toBe(true);
    expect(getterCalls).toBe(0);
    expect(holds('object.toString == null', { object: {} })).toBe(false);
    expect(holds('!object.hasOwnProperty', { object: {} })).toBe(true);
  });

  it('reads class instances, proxies and functions as missing', () => {
    class Box { type = 'sticky_note'; }
    let trapCalls = 0;
    const proxy = new Proxy({ type: 'sticky_note' }, {
      getOwnPropertyDescriptor: () => { trapCalls += 1; throw new Error('trap'); },
      getPrototypeOf: () => { trapCalls += 1; throw new Error('trap'); },
    });
    const fn = Object.assign(() => 1, { type: 'sticky_note' });
    for (const object of [new Box(), proxy, fn, new Map([['type', 'sticky_note']])]) {
      expect(holds("object.type == 'sticky_note'", { object })).toBe(false);
    }
    expect(trapCalls).toBe(0);
  });

  it('cannot pollute prototypes: evaluation only reads', () => {
    const scope = JSON.parse('{"object": {"__proto__": {"polluted": true}, "data": {}}}') as ConditionScope;
    expect(holds('object.polluted', scope)).toBe(false);
    expect(holds('object.data.polluted', scope)).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('evaluates hand-built trees that are too deep to false instead of overflowing', () => {
    let node: ConditionNode = { kind: 'literal', value: true };
    for (let i = 0; i < 100_000; i += 1) node = { kind: 'not', operand: node };
    expect(evaluateCondition(node, {})).toBe(false);
  });

  it('evaluates the deepest conditions the parser accepts', () => {
    let source = 'idleSeconds == 3';
    for (let level = 0; level < 20; level += 1) source = `(frame||1<2&&${source})`;
    expect(holds(source, { idleSeconds: 3 })).toBe(true);
    expect(holds(source, { idleSeconds: 1 })).toBe(false);
  });
});

/** Well-formed conditions, built from the grammar so the evaluator meets every node kind. */
const keyArbitrary = fc.constantFrom('type', 'data', 'text', 'points', 'done', '0', 'length', 'a b', 'missing');
const pathArbitrary = fc
  .tuple(fc.constantFrom('event', 'object', 'participant', 'frame', 'idleSeconds'), fc.array(keyArbitrary, { maxLength: 4 }))
  .map(([root, keys]) => root + keys.map((key) => (/^[a-z]+$/.test(key) ? `.${key}` : `['${key}']`)).join(''));
const literalArbitrary = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((n) => String(Math.round(n * 100) / 100)),
  fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('true', 'false', 'null'),
);
const { condition: conditionArbitrary } = fc.letrec<{ condition: string; operand: string }>((tie) => ({
  operand: fc.oneof({ depthSize: 'small', withCrossShrink: true }, literalArbitrary, pathArbitrary, tie('condition').map((c) => `(${c})`)),
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('operand'),
    fc
      .tuple(tie('operand'), fc.constantFrom('==', '===', '!=', '!==', '<', '<=', '>', '>='), tie('operand'))
      .map((parts) => parts.join(' ')),
    tie('operand').map((operand) => `!${operand}`),
    fc.tuple(tie('condition'), fc.constantFrom('&&', '||'), tie('condition')).map((parts) => parts.join(' ')),
  ),
}));

const scopeArbitrary = fc.record(
  {
    event: fc.jsonValue(),
    object: fc.jsonValue(),
    participant: fc.jsonValue(),
    frame: fc.jsonValue(),
    idleSeconds: fc.oneof(fc.integer(), fc.jsonValue()),
  },
  { requiredKeys: [] },
);

/** Pieces of the language and of JavaScript, so random strings reach deep into the parser. */
const tokenSoup = fc
  .array(
    fc.constantFrom('object', 'event', '.', "['", "']", '[', ']', '(', ')', '!', '-', '&&', '||', '==', '=', '<', '>=', "'", '"',
      '\\', '12', '3.5', 'true', 'null', '__proto__', 'constructor', ' ', '`', ';', '${', 'x', '\u{1F600}', '\uD800', '\n'),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

describe('properties', () => {
  it('parse only ever throws ConditionSyntaxError, whatever the input', () => {
    const anyString = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.string({ unit: 'binary', maxLength: 120 }),
      fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)), maxLength: 8 }),
      tokenSoup,
    );
    fc.assert(
      fc.property(anyString, (source) => {
        try {
          parseCondition(source);
        } catch (error) {
          if (!(error instanceof ConditionSyntaxError)) throw error;
          expect(error.position).toBeGreaterThanOrEqual(0);
          expect(error.position).toBeLessThanOrEqual(source.length);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('well-formed conditions parse, and evaluate to a boolean on any JSON scope', () => {
    fc.assert(
      fc.property(conditionArbitrary, scopeArbitrary, (source, scope) => {
        fc.pre(source.length <= CONDITION_LIMITS.maxLength);
        let node: ConditionNode;
        try {
          node = parseCondition(source);
        } catch (error) {
          // Generated conditions may exceed the token or depth limits; nothing else may fail.
          expect((error as Error).message).toMatch(/more than 200 tokens|nesting deeper than 20/);
          return;
        }
        expect(typeof evaluateCondition(node, scope)).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('evaluation never mutates the scope', () => {
    fc.assert(
      fc.property(conditionArbitrary, scopeArbitrary, (source, scope) => {
        fc.pre(source.length <= CONDITION_LIMITS.maxLength);
        const before = JSON.stringify(scope);
        try {
          evaluateCondition(parseCondition(source), scope);
        } catch {
          return;
        }
        expect(JSON.stringify(scope)).toBe(before);
      }),
      { numRuns: 500 },
    );
  });
});
