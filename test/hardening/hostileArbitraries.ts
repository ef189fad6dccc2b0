import fc from 'fast-check';

/**
 * Generators of hostile request bodies for test/hardening/hostileInput.test.ts. Values are
 * produced as JSON *text*, not as JavaScript values: that is the only way to send numbers
 * JavaScript cannot hold (`9007199254740993`, `1e400`), and it lets a value nest thousands
 * of levels deep without any recursion on this side.
 */

/** A JSON value as text, with a few words saying what it is (failure reports show those). */
export interface JsonText {
  text: string;
  label: string;
}

const jsonText = (value: unknown, label: string): JsonText => ({ text: JSON.stringify(value), label });
const raw = (text: string, label = text): JsonText => ({ text, label });
const kb = (text: string) => `${Math.round(Buffer.byteLength(text) / 1024)} KB`;
/** How a string is named in a label: short ones escaped in full, long ones by length. */
const showString = (text: string) => (text.length <= 24 ? JSON.stringify(text) : `${text.length}-unit string ${JSON.stringify(text.slice(0, 12))}…`);

/** Nested `depth` levels deep: objects (`{"a":{"a":…}}`), arrays, or both in turn. */
export const deepValue: fc.Arbitrary<JsonText> = fc
  .tuple(
    fc.oneof(fc.constantFrom(31, 32, 33, 40, 41, 64), fc.integer({ min: 65, max: 5_000 }), fc.constantFrom(5_000, 10_000)),
    fc.constantFrom('object', 'array', 'mixed'),
  )
  .map(([depth, shape]) => {
    const half = Math.ceil(depth / 2);
    const text =
      shape === 'object'
        ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
        : shape === 'array'
          ? `${'['.repeat(depth)}${']'.repeat(depth)}`
          : `${'{"a":['.repeat(half)}1${']}'.repeat(half)}`;
    return raw(text, `${shape} nested ${depth} levels (${kb(text)})`);
  });

/** Thousands of keys or items, around the bounds the service announces (1,000 keys, 10,000 items). */
export const wideValue: fc.Arbitrary<JsonText> = fc
  .tuple(
    fc.oneof(fc.constantFrom(999, 1_000, 1_001, 9_999, 10_000, 10_001), fc.integer({ min: 1_002, max: 20_000 })),
    fc.constantFrom('object', 'numbers', 'empty objects', 'strings', 'entries'),
  )
  .map(([size, shape]) => {
    const indexes = Array.from({ length: size }, (_, i) => i);
    const text =
      shape === 'object'
        ? `{${indexes.map((i) => `"k${i}":${i}`).join(',')}}`
        : `[${indexes.map((i) => (shape === 'numbers' ? `${i}` : shape === 'empty objects' ? '{}' : shape === 'strings' ? '""' : `{"frame_id":"f${i}"}`)).join(',')}]`;
    return raw(text, `${shape === 'object' ? 'object with' : 'array of'} ${size} ${shape === 'object' ? 'keys' : shape} (${kb(text)})`);
  });

/** Long strings, around the bounds (255, 2,048, 100,000 characters) and up to ~1 MB. */
export const hugeString: fc.Arbitrary<JsonText> = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(255, 256, 2_048, 2_049, 100_000, 100_001) },
      { weight: 1, arbitrary: fc.integer({ min: 100_002, max: 1_000_000 }) },
    ),
    fc.constantFrom('x', 'é', '😀', ' ', '\u0000'),
  )
  .map(([wanted, unit]) => {
    // About a megabyte on the wire at most, however the unit is written (`\u0000` takes 6 bytes).
    const bytesPerUnit = (Buffer.byteLength(JSON.stringify(unit)) - 2) / unit.length;
    const length = Math.min(wanted, Math.floor(1_048_576 / bytesPerUnit));
    const text = unit.repeat(Math.max(1, Math.floor(length / unit.length)));
    return jsonText(text, `string of ${text.length} UTF-16 units of ${JSON.stringify(unit)}`);
  });

/** Strings that break parsers, databases, terminals or naive checks. */
const ODD_STRINGS = [
  '\ud800', '\udfff', 'a\ud800b', '\udc00\ud800', '\ud83d', '\u0000', 'a\u0000b', '\u202e', '\u200f', '\ufeff', '\u2028\u2029',
  '😀', '👩‍👩‍👧‍👦', 'e\u0301', 'Z̴̡̛̖a̷l̵g̸o̶', '', ' ', '\t\n\r', '\uffff', '\ufffe', '\u{10ffff}', '１２３',
  '%ff', '%', '../../etc/passwd', '<script>alert(1)</script>', "'; DROP TABLE boards; --", '${jndi:ldap://x/a}', '{{7*7}}',
  '\\', '"', '__proto__', 'constructor', 'null', 'NaN', 'http://127.0.0.1/', 'javascript:alert(1)', '#zzzzzz',
];

export const oddString: fc.Arbitrary<JsonText> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS).map((text) => jsonText(text, `string ${showString(text)}`)) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 1, maxLength: 40 })
      .map((units) => String.fromCharCode(...units))
      .map((text) => jsonText(text, `random UTF-16 units ${showString(text)}`)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('😀', 'é', 'e\u0301', '\ud800', '\u0000'), fc.integer({ min: 250, max: 260 }))
      .map(([unit, times]) => jsonText(unit.repeat(times), `${JSON.stringify(unit)} × ${times}`)),
  },
);

/** Numbers beyond what JavaScript, a 32-bit column or a 64-bit column holds, written as JSON text. */
const ODD_NUMBERS = [
  '1e308', '-1e308', '1.7976931348623157e308', '1e309', '-1e309', '1e400', '9007199254740993', '9007199254740992',
  '-9007199254740993', '2147483647', '2147483648', '-2147483649', '4294967296', '9223372036854775807',
  '9223372036854775808', '123456789012345678901234567890', `1${'0'.repeat(400)}`, '-0', '-0.0', '0.0', '1e-320',
  '5e-324', '1e-400', '0.1', '1.5', '-1', '1E2', '1e+2', '100.0', '0.30000000000000004',
];

export const oddNumber: fc.Arbitrary<JsonText> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_NUMBERS).map((text) => raw(text, `number ${text.length > 30 ? `${text.slice(0, 12)}… (${text.length} digits)` : text}`)) },
  { weight: 1, arbitrary: fc.double().map((value) => jsonText(value, `number ${JSON.stringify(value)}`)) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }).map((value) => raw(String(value), `integer ${value}`)) },
);

export const wrongType: fc.Arbitrary<JsonText> = fc
  .constantFrom('null', 'true', 'false', '0', '1', '""', '"1"', '"true"', '[]', '[null]', '{}', '[{}]', '[[]]')
  .map((text) => raw(text, `wrong type ${text}`));

/** Objects whose keys are the hostile part. */
export const oddKeys: fc.Arbitrary<JsonText> = fc
  .constantFrom(
    raw('{"\\ud800":1}', 'object with a lone-surrogate key'),
    raw('{"\\u0000":1}', 'object with a NUL key'),
    raw('{"":1}', 'object with an empty key'),
    raw('{"a":1,"a":2}', 'object with a duplicate key'),
    raw('{"__proto__":{"polluted":true}}', 'object with a __proto__ key'),
    raw('{"constructor":{"prototype":{"polluted":true}}}', 'object with a constructor.prototype key'),
    raw(`{"${'k'.repeat(100_001)}":1}`, 'object with a 100,001-character key'),
  );

/** Small well-formed JSON of any shape (fast-check's own generator). */
export const randomJson: fc.Arbitrary<JsonText> = fc.jsonValue({ maxDepth: 4 }).map((value) => {
  const text = JSON.stringify(value);
  return raw(text, `random JSON ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`);
});

/** Any hostile value. */
export const hostileValue: fc.Arbitrary<JsonText> = fc.oneof(
  { weight: 3, arbitrary: oddString },
  { weight: 3, arbitrary: oddNumber },
  { weight: 2, arbitrary: wrongType },
  { weight: 2, arbitrary: deepValue },
  { weight: 2, arbitrary: wideValue },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: oddKeys },
  { weight: 2, arbitrary: randomJson },
);

/** JSON text no JSON parser accepts (or accepts only by accident). */
const MALFORMED_JSON = [
  '{', '}', '{"title":', '{"a":1,}', "{'a':1}", 'NaN', 'undefined', '\ufeff{}', '{"a":1}{"b":2}', '[1,2', '"unterminated',
  '{"a":"\\x41"}', '{"a":"\\ud800\\"}', '{"a":01}', '{"a":1e}', '{"a":-}', '{"a":.5}', '', ' ', '\u0000', '{"a":1}\u0000', '{a:1}',
  `${'['.repeat(200_000)}`, '{"a":"\t"}',
];

/** Bytes that are not UTF-8 at all, inside otherwise valid JSON. */
const INVALID_UTF8 = [
  [0xff, 0xfe],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
].map((bytes) => Buffer.concat([Buffer.from('{"title":"'), Buffer.from(bytes), Buffer.from('"}')]));

/** Content types (and encodings) a JSON route should refuse or handle, sent with a valid JSON body. */
const ODD_CONTENT = [
  { contentType: 'text/plain' },
  { contentType: 'application/x-www-form-urlencoded' },
  { contentType: 'multipart/form-data; boundary=x' },
  { contentType: 'application/merge-patch+json' },
  { contentType: 'application/json; charset=utf-16' },
  { contentType: 'application/json; charset=latin1' },
  { contentType: 'application/json; charset=utf-7' },
  { contentType: 'application/json', contentEncoding: 'gzip' },
  { contentType: 'application/json', contentEncoding: 'deflate' },
  { contentType: 'application/json', contentEncoding: 'br' },
  { contentType: 'application/json', contentEncoding: 'x-unknown' },
  { contentType: undefined },
];

/** A path into a body: object keys and array indexes. */
export type FieldPath = ReadonlyArray<string | number>;

/** A place in a valid body, and the JSON type the schema expects there (`absent`: a key it does not know). */
export interface FieldSlot {
  field: FieldPath;
  expects: 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array' | 'absent';
}

/** How a body is built: the route's valid body damaged in one place, or something sent instead of it. */
export type BodyPlan =
  | { kind: 'near-valid'; field: FieldPath; value: JsonText }
  | { kind: 'whole'; value: JsonText }
  | { kind: 'malformed'; text: string }
  | { kind: 'invalid-utf8'; bytes: Buffer }
  | { kind: 'truncated'; fraction: number }
  | { kind: 'content-type'; contentType: string | undefined; contentEncoding?: string };

/**
 * Every place in `body` a hostile value can go: each key and item (nested ones too), one new
 * item after each array's last, and one key the schema does not know at the top.
 */
export function fieldSlots(body: Record<string, unknown>): FieldSlot[] {
  const slots: FieldSlot[] = [{ field: ['unexpected_field'], expects: 'absent' }];
  const pending: Array<{ value: unknown; field: FieldPath }> = [{ value: body, field: [] }];
  while (pending.length > 0) {
    const { value, field } = pending.pop()!;
    if (Array.isArray(value)) {
      slots.push({ field: [...field, value.length], expects: 'absent' });
      value.forEach((item, index) => pending.push({ value: item, field: [...field, index] }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) pending.push({ value: item, field: [...field, key] });
    }
    if (field.length > 0) slots.push({ field, expects: Array.isArray(value) ? 'array' : value === null ? 'null' : (typeof value as FieldSlot['expects']) });
  }
  return slots;
}

/**
 * Hostile values of the type a slot expects, which pass the schema's type check and reach
 * what lies behind it (bounds, the database, the Yjs encoder).
 */
const SAME_TYPE: Record<FieldSlot['expects'], fc.Arbitrary<JsonText>> = {
  string: fc.oneof({ weight: 4, arbitrary: oddString }, { weight: 1, arbitrary: hugeString }),
  number: oddNumber,
  object: fc.oneof(deepValue, wideValue, oddKeys, randomJson),
  array: fc.oneof(wideValue, deepValue),
  boolean: hostileValue,
  null: hostileValue,
  absent: hostileValue,
};

function nearValid(slot: FieldSlot): fc.Arbitrary<BodyPlan> {
  const value = fc.oneof({ weight: 3, arbitrary: SAME_TYPE[slot.expects] }, { weight: 1, arbitrary: hostileValue });
  return value.map((hostile) => ({ kind: 'near-valid' as const, field: slot.field, value: hostile }));
}

/** Bodies for a route whose valid body has `slots`; near-valid ones are the most common. */
export function bodyPlan(slots: readonly FieldSlot[]): fc.Arbitrary<BodyPlan> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...slots).chain(nearValid) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('whole' as const), value: hostileValue }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('malformed' as const), text: fc.constantFrom(...MALFORMED_JSON) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('invalid-utf8' as const), bytes: fc.constantFrom(...INVALID_UTF8) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncated' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_CONTENT).map((content) => ({ kind: 'content-type' as const, ...content })) },
  );
}

/** A short description of a plan, for failure reports (a body can be a megabyte long). */
export function describePlan(plan: BodyPlan): string {
  switch (plan.kind) {
    case 'near-valid':
      return `valid body with ${plan.field.join('.')} = ${plan.value.label}`;
    case 'whole':
      return `body = ${plan.value.label}`;
    case 'malformed':
      return `malformed JSON ${plan.text.length > 40 ? `${JSON.stringify(plan.text.slice(0, 12))}… (${plan.text.length} chars)` : JSON.stringify(plan.text)}`;
    case 'invalid-utf8':
      return `invalid UTF-8 bytes ${plan.bytes.toString('hex')}`;
    case 'truncated':
      return `valid body cut at ${Math.round(plan.fraction * 100)}%`;
    case 'content-type':
      return `valid body sent as ${plan.contentType ?? 'no content type'}${plan.contentEncoding ? ` with content-encoding ${plan.contentEncoding}` : ''}`;
  }
}

/** What goes on the wire: the body and the content headers. */
export interface RenderedBody {
  body: string | Buffer;
  headers: Record<string, string>;
}

/** Marks where the hostile text goes; no route's valid body contains it. */
const HOLE = '\u0001hostile value\u0001';
const HOLE_TEXT = JSON.stringify(HOLE);

/** Builds the bytes of `plan` from the route's valid `base` body. */
export function renderBody(plan: BodyPlan, base: Record<string, unknown>): RenderedBody {
  const json = { 'content-type': 'application/json' };
  switch (plan.kind) {
    case 'near-valid': {
      const copy = structuredClone(base);
      setAt(copy, plan.field, HOLE);
      // A function replacement, so `$&` and friends in the hostile text are not patterns.
      return { body: JSON.stringify(copy).replace(HOLE_TEXT, () => plan.value.text), headers: json };
    }
    case 'whole':
      return { body: plan.value.text, headers: json };
    case 'malformed':
      return { body: plan.text, headers: json };
    case 'invalid-utf8':
      return { body: plan.bytes, headers: json };
    case 'truncated': {
      const text = JSON.stringify(base);
      return { body: text.slice(0, Math.floor(text.length * plan.fraction)), headers: json };
    }
    case 'content-type': {
      const headers: Record<string, string> = {};
      if (plan.contentType) headers['content-type'] = plan.contentType;
      if (plan.contentEncoding) headers['content-encoding'] = plan.contentEncoding;
      // Bytes, so fetch adds no content type of its own.
      return { body: Buffer.from(JSON.stringify(base)), headers };
    }
  }
}

function setAt(target: Record<string, unknown>, path: FieldPath, value: unknown): void {
  let node: any = target;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]!] = value;
}

/** Malformed percent-encodings and odd segments for path parameters (`/boards/%ff`). */
export const MALFORMED_SEGMENTS = ['%', '%f', '%ff', '%zz', '%%', '%c0%80', '%ed%a0%80', '%e2%82', '%ff%fe', '%00', '%2e%2e', 'a%2fb', '%u0041', `${'%41'.repeat(3_000)}`];
