/**
 * The only way the renderer makes markup. Element and attribute names come from fixed lists,
 * every value is escaped, and text is character data: whatever an object's data holds (a
 * sticky saying `</text><script>`), it never becomes an element, an attribute or a reference.
 */

declare const markupBrand: unique symbol;
/** A piece of SVG this module built: the only string type the builders accept as a child. */
export type Markup = string & { readonly [markupBrand]: true };

const ELEMENTS = ['svg', 'title', 'defs', 'filter', 'feDropShadow', 'g', 'rect', 'ellipse', 'path', 'text', 'tspan', 'image'] as const;
export type ElementName = (typeof ELEMENTS)[number];

const ATTRIBUTES = [
  'xmlns', 'width', 'height', 'viewBox', 'preserveAspectRatio', 'href', 'id', 'transform', 'filter',
  'x', 'y', 'dx', 'dy', 'rx', 'ry', 'cx', 'cy', 'd',
  'fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stdDeviation', 'flood-color', 'flood-opacity',
  'font-family', 'font-size', 'font-weight', 'text-anchor', 'xml:space',
  'data-object-id', 'data-type', 'data-frame-id',
] as const;
export type AttributeName = (typeof ATTRIBUTES)[number];

/** Attribute values: numbers are written to one decimal; null and undefined leave the attribute out. */
export type Attributes = Partial<Record<AttributeName, string | number | null | undefined>>;

const ALLOWED_ELEMENTS: ReadonlySet<string> = new Set(ELEMENTS);
const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set(ATTRIBUTES);

/** An element with its children; a name or attribute off the lists is a bug in the renderer, not data. */
export function element(name: ElementName, attributes: Attributes, ...children: Markup[]): Markup {
  const open = openTag(name, attributes);
  return (children.length === 0 ? `${open.slice(0, -1)}/>` : `${open}${children.join('')}</${name}>`) as Markup;
}

/** The start tag of an element whose children are written (streamed) one by one. */
export function openTag(name: ElementName, attributes: Attributes): Markup {
  if (!ALLOWED_ELEMENTS.has(name)) throw new Error(`The renderer does not emit <${name}>`);
  let tag = `<${name}`;
  for (const [attribute, value] of Object.entries(attributes)) {
    if (!ALLOWED_ATTRIBUTES.has(attribute)) throw new Error(`The renderer does not emit the attribute ${attribute}`);
    if (value === null || value === undefined) continue;
    tag += ` ${attribute}="${escapeAttribute(typeof value === 'number' ? formatNumber(value) : value)}"`;
  }
  return `${tag}>` as Markup;
}

export function closeTag(name: ElementName): Markup {
  return `</${name}>` as Markup;
}

/** Text as character data. */
export function text(value: string): Markup {
  return withoutInvalidXml(value).replace(/[&<>]/g, (char) => TEXT_ESCAPES[char]!) as Markup;
}

export function concat(parts: readonly Markup[]): Markup {
  return parts.join('') as Markup;
}

export const EMPTY = '' as Markup;

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
// Whitespace in attributes as references: a parser would otherwise normalise it to spaces.
const ATTRIBUTE_ESCAPES: Record<string, string> = { ...TEXT_ESCAPES, '"': '&quot;', "'": '&apos;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

function escapeAttribute(value: string): string {
  return withoutInvalidXml(value).replace(/[&<>"'\t\n\r]/g, (char) => ATTRIBUTE_ESCAPES[char]!);
}

/**
 * Characters XML 1.0 cannot carry at all, escaped or not (control characters, lone surrogates,
 * U+FFFE/U+FFFF), removed: one of them in a note would make the whole file unreadable.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function withoutInvalidXml(value: string): string {
  return value.replace(INVALID_XML, '');
}

/** A number as SVG writes it here: at most one decimal, no `-0`, and 0 for what is not finite. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '0';
  const rounded = Math.round(value * 10) / 10;
  return rounded === 0 ? '0' : String(rounded);
}

/**
 * The client's colour rule (client/src/view/scene.ts, `withFill`): a hex colour or a word. The
 * browser then ignores a value that is no CSS colour (`#12345`, `blurple`) and the default fill
 * shows; here the same values fall back to the caller's default. Copied rather than imported:
 * the client's allowed imports from src/ stay the ones the lint rule lists.
 */
export const CLIENT_COLOR_RULE = /^#[0-9a-f]{3,8}$|^[a-z]{3,20}$/i;
const HEX_LENGTHS: ReadonlySet<number> = new Set([4, 5, 7, 9]);

export function paint(value: unknown): string | null {
  if (typeof value !== 'string' || !CLIENT_COLOR_RULE.test(value)) return null;
  const color = value.toLowerCase();
  if (color.startsWith('#')) return HEX_LENGTHS.has(color.length) ? color : null;
  return CSS_COLOR_NAMES.has(color) ? color : null;
}

/** The named colours of CSS Color 4, which browsers, resvg and svg-to-pdfkit all know. */
const CSS_COLOR_NAMES: ReadonlySet<string> = new Set(
  (
    'aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown burlywood ' +
    'cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan darkgoldenrod darkgray ' +
    'darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen ' +
    'darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue dimgray dimgrey dodgerblue ' +
    'firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold goldenrod gray green greenyellow grey honeydew ' +
    'hotpink indianred indigo ivory khaki lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan ' +
    'lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray ' +
    'lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine mediumblue ' +
    'mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise mediumvioletred ' +
    'midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid ' +
    'palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum powderblue purple ' +
    'rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue ' +
    'slateblue slategray slategrey snow springgreen steelblue tan teal thistle tomato turquoise violet wheat white ' +
    'whitesmoke yellow yellowgreen transparent'
  ).split(' '),
);
