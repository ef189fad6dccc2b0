import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_COLOR_RULE, element, formatNumber, openTag, paint, text, type Attributes, type ElementName } from './escape.js';

describe('escape', () => {
  it('writes text as character data, never as markup', () => {
    expect(text('</text><script>alert("x")</script> & ]]>')).toBe('&lt;/text&gt;&lt;script&gt;alert("x")&lt;/script&gt; &amp; ]]&gt;');
  });

  it('escapes attribute values, quotes and whitespace included', () => {
    expect(element('rect', { fill: `"/><script>'a'\n` })).toBe('<rect fill="&quot;/&gt;&lt;script&gt;&apos;a&apos;&#10;"/>');
  });

  it('drops characters XML cannot carry and keeps surrogate pairs', () => {
    expect(text('a\u0000\u0007b\u001Fc\uD800d\uDC00e\uFFFEf😀\t\n')).toBe('abcdef😀\t\n');
    expect(element('g', { 'data-object-id': 'x\u0001y' })).toBe('<g data-object-id="xy"/>');
  });

  it('refuses elements and attributes off its lists', () => {
    expect(() => element('script' as ElementName, {})).toThrow('<script>');
    expect(() => element('foreignObject' as ElementName, {})).toThrow('<foreignObject>');
    expect(() => openTag('rect', { onload: 'x' } as Attributes)).toThrow('onload');
    expect(() => element('image', { 'xlink:href': 'x' } as Attributes)).toThrow('xlink:href');
  });

  it('leaves out null attributes and closes empty elements', () => {
    expect(element('text', { x: 1, 'text-anchor': null, fill: undefined }, text('a'))).toBe('<text x="1">a</text>');
    expect(element('g', {})).toBe('<g/>');
  });

  it('writes numbers with at most one decimal', () => {
    expect([1.25, 3, -0.04, 1 / 3, -12.96, Number.NaN, Infinity].map(formatNumber)).toEqual(['1.3', '3', '0', '0.3', '-13', '0', '0']);
    expect(element('rect', { x: 0.123456, width: 99.99 })).toBe('<rect x="0.1" width="100"/>');
  });

  it("takes colours only through the client's rule, and only those a browser would apply", () => {
    expect(['#FDE68A', '#abc', '#abcd', '#11223344', 'RED', 'rebeccapurple', 'transparent'].map(paint)).toEqual(['#fde68a', '#abc', '#abcd', '#11223344', 'red', 'rebeccapurple', 'transparent']);
    const refused = ['#12345', '#1234567', 'blurple', 'url(#a)', 'red;stroke:blue', 'rgb(0,0,0)', '" onload="x', 'javascript', ' red', '', 12, null, { color: 'red' }];
    expect(refused.map(paint)).toEqual(refused.map(() => null));
  });

  it('copies the colour rule the client applies, which has not changed since', () => {
    const client = new URL('../../../client/src/', import.meta.url);
    const sources = readdirSync(client, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const using = sources.filter((file) => readFileSync(new URL(file, client), 'utf8').includes(`/${CLIENT_COLOR_RULE.source}/i.test(`));
    expect(using).not.toEqual([]);
  });
});
