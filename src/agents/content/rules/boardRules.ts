import type { BoardObject } from '../../../boards/boardObjects.js';
import { MAX_CONTEXT_OBJECTS, MAX_OUTPUT_ITEMS, type ContentOutputOf, type ContentRequest } from '../contentTypes.js';
import { contentWords, countWords, jaccard, objectText, sentencesOf, topWords, truncate } from '../textTools.js';
import { numberParam, plural, stringListParam, textOf, type RuleAnswer } from './ruleInputs.js';

/** The rules that read the whole scope: summarize, cluster_similar and validate_design. */

// ── summarize ────────────────────────────────────────────────────────────────────────────

const MAX_POINT_CHARS = 300;

export function summarize(request: ContentRequest): RuleAnswer<'summarize'> {
  const maxPoints = Math.round(numberParam(request.params, 'maxPoints', 1, 10, 5));
  const sources = request.objects.length > 0 ? request.objects : request.subject ? [request.subject] : [];
  const texts = sources.map(textOf).filter((text) => text.trim() !== '');
  if (texts.length === 0) {
    return { output: { action: 'summarize', summary: 'There is nothing to summarize yet.', points: [] }, reasoning: 'No object in scope has text.' };
  }
  const counts = new Map<string, number>();
  for (const text of texts) countWords(counts, contentWords(text));
  const themes = topWords(counts, 5, 2);
  const uniqueSentences = new Map(texts.flatMap(sentencesOf).map((sentence) => [sentence.toLowerCase(), sentence]));
  // A sentence ranks by how often the board repeats its words; the square root keeps long
  // sentences from winning on length alone.
  const rank = (words: Set<string>) => [...words].reduce((sum, word) => sum + (counts.get(word) ?? 0), 0) / Math.sqrt(words.size);
  const points = [...uniqueSentences.values()]
    .map((sentence, index) => ({ sentence, index, words: new Set(contentWords(sentence)) }))
    .filter(({ words }) => words.size > 0)
    .map((entry) => ({ ...entry, rank: rank(entry.words) }))
    .sort((a, b) => b.rank - a.rank || a.index - b.index)
    .slice(0, maxPoints)
    .map(({ sentence }) => truncate(sentence, MAX_POINT_CHARS));
  const summary = `${plural(texts.length, 'note')}; ${themes.length > 0 ? `recurring themes: ${themes.join(', ')}.` : 'no recurring theme yet.'}`;
  return {
    output: { action: 'summarize', summary, points },
    reasoning: `Extracted ${plural(points.length, 'key sentence')} from ${plural(texts.length, 'note')}.`,
  };
}

// ── cluster_similar ──────────────────────────────────────────────────────────────────────

export function clusterSimilar(request: ContentRequest): RuleAnswer<'cluster_similar'> {
  const threshold = numberParam(request.params, 'threshold', 0.05, 1, 0.3);
  const minSize = Math.round(numberParam(request.params, 'minClusterSize', 1, MAX_CONTEXT_OBJECTS, 2));
  const items = request.objects
    .slice(0, MAX_CONTEXT_OBJECTS)
    .map((object, index) => ({ id: object.id, index, words: new Set(contentWords(textOf(object))) }))
    .filter(({ words }) => words.size > 0);
  const clusters = linkedGroups(items, (a, b) => jaccard(a.words, b.words) >= threshold)
    .filter((group) => group.length >= minSize)
    .map((group) => group.sort((a, b) => a.index - b.index))
    .sort((a, b) => b.length - a.length || (a[0]?.index ?? 0) - (b[0]?.index ?? 0))
    .slice(0, MAX_OUTPUT_ITEMS)
    .map((group) => ({ label: clusterLabel(group.map(({ words }) => words)), objectIds: group.map(({ id }) => id) }));
  const grouped = clusters.reduce((sum, { objectIds }) => sum + objectIds.length, 0);
  return {
    output: { action: 'cluster_similar', clusters },
    reasoning: `Grouped ${grouped} of ${plural(items.length, 'note')} into ${plural(clusters.length, 'cluster')} (word overlap ≥ ${threshold}).`,
  };
}

/** Connected components of the `linked` relation, in discovery order. O(n²) links, n ≤ 200. */
function linkedGroups<T>(items: readonly T[], linked: (a: T, b: T) => boolean): T[][] {
  let remaining = [...items];
  const groups: T[][] = [];
  for (let seed = remaining.shift(); seed !== undefined; seed = remaining.shift()) {
    const group = [seed];
    // The loop also visits members appended while it runs: that is what makes it transitive.
    for (const member of group) {
      const unlinked: T[] = [];
      for (const candidate of remaining) (linked(member, candidate) ? group : unlinked).push(candidate);
      remaining = unlinked;
    }
    groups.push(group);
  }
  return groups;
}

/** The words most members share (up to three), else the most frequent ones. */
function clusterLabel(wordSets: ReadonlyArray<Set<string>>): string {
  const counts = new Map<string, number>();
  for (const words of wordSets) countWords(counts, words);
  const shared = topWords(counts, 3, 2);
  return truncate((shared.length > 0 ? shared : topWords(counts, 3)).join(', '), 200);
}

// ── validate_design ──────────────────────────────────────────────────────────────────────

export function validateDesign(request: ContentRequest): RuleAnswer<'validate_design'> {
  const given = request.params.rules;
  const rules = given && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : { noOverlap: true };
  const { objects } = request;
  const issues: ContentOutputOf<'validate_design'>['issues'] = [];
  let found = 0;
  const report = (objectId: string | null, message: string) => {
    found += 1;
    if (issues.length < MAX_OUTPUT_ITEMS - 1) issues.push({ objectId, message });
  };
  const limit = (key: string): number | null => {
    const value = rules[key];
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  };
  const [minObjects, maxObjects, maxTextLength] = [limit('minObjects'), limit('maxObjects'), limit('maxTextLength')];
  const count = plural(objects.length, 'object');
  if (minObjects !== null && objects.length < minObjects) report(null, `The board has ${count}; at least ${minObjects} expected.`);
  if (maxObjects !== null && objects.length > maxObjects) report(null, `The board has ${count}; at most ${maxObjects} allowed.`);
  const types = new Set(objects.map(({ type }) => type));
  for (const type of stringListParam(rules, 'requiredTypes')) if (!types.has(type)) report(null, truncate(`No object of type "${type}".`, 500));
  for (const object of objects) {
    const length = objectText(object).length;
    if (maxTextLength !== null && length > maxTextLength) report(object.id, `Text is ${length} characters; at most ${maxTextLength} allowed.`);
  }
  if (rules.noOverlap === true) for (const [a, b] of overlappingPairs(objects)) report(a, `Overlaps ${b}.`);
  if (found > issues.length) issues.push({ objectId: null, message: `…and ${plural(found - issues.length, 'more issue')}.` });
  return {
    output: { action: 'validate_design', valid: found === 0, issues },
    reasoning: found === 0 ? `${count} meet every rule.` : `Found ${plural(found, 'issue')}.`,
  };
}

/** Pairs of sized objects whose rectangles share some area; unsized objects are skipped. */
function* overlappingPairs(objects: BoardObject[]): Generator<[string, string]> {
  const boxes = objects.flatMap(({ id, position, width, height }) =>
    typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0
      ? [{ id, left: position.x, top: position.y, right: position.x + width, bottom: position.y + height }]
      : [],
  );
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) yield [a.id, b.id];
    }
  }
}
