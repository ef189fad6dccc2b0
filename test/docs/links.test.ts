import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link of README.md and docs/**\/*.md reaches a file of the repository, and every
 * `#anchor` a heading of the file it names (GitHub's slugs). Absolute http(s) links are not fetched.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name));
  return [join(ROOT, 'README.md'), ...docs.sort()];
}

/** The text outside fenced code blocks, with inline code spans blanked (links there are examples). */
function proseOf(markdown: string): string {
  const prose: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null && marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    else if (fence === null) {
      prose.push(line.replace(/(`+)[^`]*?\1/g, ''));
      continue;
    }
    prose.push('');
  }
  return prose.join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (but '-' and '_'), spaces to '-'. */
function slugOf(heading: string): string {
  const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').trim().toLowerCase(); // links keep their text
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' slugs (repeats numbered as GitHub does) and HTML ids. */
function anchorsOf(markdown: string): Set<string> {
  const prose = proseOf(markdown);
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose.split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of prose.matchAll(/<[^>]+\s(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** The link targets of a file's prose: inline links and images, reference definitions, HTML href/src. */
function linkTargetsOf(markdown: string): string[] {
  const prose = proseOf(markdown);
  const inline = [...prose.matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)];
  const references = [...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)];
  const html = [...prose.matchAll(/<[^>]+\s(?:href|src)="([^"]+)"/g)];
  return [...inline, ...references, ...html].map((match) => match[1]!).filter((target) => target !== '');
}

/** What is wrong with one link of `file`, or null when it resolves. */
function problemOf(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // http(s), mailto…: not fetched
  const hashAt = target.indexOf('#');
  const pathPart = decodeURIComponent(hashAt === -1 ? target : target.slice(0, hashAt));
  const anchor = hashAt === -1 ? null : decodeURIComponent(target.slice(hashAt + 1));
  const resolved = pathPart === '' ? file : resolve(dirname(file), pathPart);
  if (!existsSync(resolved)) return `${target}: no such file`;
  if (anchor === null) return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return `${target}: an anchor into a file that is not markdown`;
  if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) return `${target}: no heading #${anchor} in ${relative(ROOT, resolved)}`;
  return null;
}

describe('documentation links', () => {
  it('builds anchors as GitHub does', () => {
    expect(slugOf('API description: OpenAPI and the docs page')).toBe('api-description-openapi-and-the-docs-page');
    expect(slugOf('The bridge: what a component’s page sees')).toBe('the-bridge-what-a-components-page-sees');
    expect(slugOf('`GET /boards/<id>/elements` and [links](x.md)')).toBe('get-boardsidelements-and-links');
    expect(slugOf('snake_case and kebab-case')).toBe('snake_case-and-kebab-case');
    expect([...anchorsOf('# Notes\n## Notes\n```\n# not a heading\n```\n')]).toEqual(['notes', 'notes-1']);
  });

  it('finds the links of prose, not of code', () => {
    const markdown = 'See [a](a.md#x) and ![b](b.png).\n\n```sh\n[c](c.md)\n```\n`[d](d.md)` and [e]: e.md\n[f]: f.md\n';
    expect(linkTargetsOf(markdown)).toEqual(['a.md#x', 'b.png', 'f.md']);
  });

  const files = markdownFiles();
  it('covers README.md and the guides', () => {
    const names = files.map((file) => relative(ROOT, file));
    expect(names).toContain('README.md');
    expect(names).toContain('docs/operating.md');
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))('every relative link of %s resolves', (_name, file) => {
    const problems = linkTargetsOf(readFileSync(file, 'utf8'))
      .map((target) => problemOf(file, target))
      .filter((problem): problem is string => problem !== null);
    expect(problems).toEqual([]);
  });
});
