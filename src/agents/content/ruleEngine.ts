/**
 * The built-in content engine, used when no LLM is configured: deterministic rules, offline,
 * no randomness, well under a millisecond for a typical request. Same request, same answer.
 *
 * "The text" of an object is `data.text`, else `data.title`, `data.content` or `data.label`.
 * "The answer" is the subject's text, else `params.text`. Params by action (all optional
 * unless marked; wrong types are ignored):
 *
 * - evaluate_answer `{expected?: string | string[], keywords?: string[], caseSensitive?: boolean,
 *   passScore?: number}`: an answer equal to an expected one (case, punctuation and spacing
 *   aside; numbers by value) scores 1. Otherwise score = the share of `keywords` (phrases
 *   allowed), or of the expected answer's words, found in the answer; correct when score ≥
 *   passScore (default 1). With neither: correct null, score from effort (25 words = 1).
 * - generate_hint `{level?: 1 | 2 | 3, topic?: string, expected?: string | string[],
 *   keywords?: string[]}`: 1 = a nudge towards `topic` (else the agent's first goal); 2 = the
 *   answer's shape (word count, a first letter) and progress; 3 = the expected answer (or the
 *   keywords) itself. Below level 3 an expected answer never appears in the hint.
 * - summarize `{maxPoints?: number}` (1-10, default 5): extractive over `objects`: recurring
 *   words as themes, the sentences that carry them most as points.
 * - cluster_similar `{threshold?: number, minClusterSize?: number}` (defaults 0.3 and 2):
 *   objects whose word sets (stop words removed) have Jaccard similarity ≥ threshold join one
 *   cluster (transitively); largest cluster first, labelled by its most shared words.
 * - check_sentiment `{blockedWords?: string[]}`: lexicon score with negation ("not good") and
 *   intensifiers ("very"), -1..1; `flagged` when the text holds an abusive word (a short mild
 *   list) or one of `blockedWords` (words or phrases, whole-word match).
 * - generate_content `{prompt: string (else the answer), style?: 'sticky' | 'mindmap' |
 *   'list' | 'grid', count?: number, objectType?: string}`: one note per line, or per comma
 *   item, or `count` (default 5) template notes for "ideas about X"; at most 20 objects of
 *   `objectType` (default 'sticky') with `data.text`, the first at the origin.
 * - validate_design `{rules?: {minObjects?, maxObjects?, requiredTypes?: string[],
 *   maxTextLength?, noOverlap?: boolean}}` over `objects`; no rules = `{noOverlap: true}`.
 *   Objects without width and height are not checked for overlap.
 *
 * tokensUsed = ceil((characters read + characters of the output as JSON) / 4): "token
 * equivalents", so agent budgets mean something offline.
 */
import type { BoardObject } from '../../boards/boardObjects.js';
import {
  ContentEngineError,
  isContentAction,
  MAX_CONTEXT_OBJECTS,
  MAX_GENERATED_OBJECTS,
  MAX_OUTPUT_ITEMS,
  type ContentActionType,
  type ContentEngine,
  type ContentOutputOf,
  type ContentRequest,
  type ContentResult,
  type GeneratedObject,
} from './contentTypes.js';
import {
  containsPhrase,
  contentWords,
  countWords,
  jaccard,
  keyWordsOf,
  lexiconSentiment,
  matchWords,
  numberOf,
  objectText,
  promptItems,
  sameAnswer,
  sentencesOf,
  topWords,
  truncate,
  wordsOf,
} from './textTools.js';

interface RuleAnswer<A extends ContentActionType> {
  output: ContentOutputOf<A>;
  reasoning: string;
}

/** Characters read from one object: enough for any note, bounded for pathological ones. */
const MAX_TEXT_READ = 10_000;
/** A prompt longer than this is cut before it is split into notes. */
const MAX_PROMPT_CHARS = 2_000;
const MAX_LIST_PARAM = 100;

export function createRuleEngine(): ContentEngine {
  return {
    kind: 'rules',
    // The rules are deterministic and cheap, so the bound is the exact cost.
    estimateTokens(request) {
      try {
        return answer(request).tokensUsed;
      } catch {
        return Math.ceil(charsRead(request) / 4);
      }
    },
    async run(request, options) {
      if (options?.signal?.aborted) throw new ContentEngineError('The content action was aborted', 0);
      return answer(request);
    },
  };
}

function answer(request: ContentRequest): ContentResult {
  if (!isContentAction(request.action)) throw new ContentEngineError(`Unknown content action "${String(request.action)}"`, 0);
  const { output, reasoning } = RULES[request.action](request);
  return { output, reasoning, tokensUsed: Math.ceil((charsRead(request) + JSON.stringify(output).length) / 4) };
}

const RULES: { [A in ContentActionType]: (request: ContentRequest) => RuleAnswer<A> } = {
  evaluate_answer: evaluateAnswer,
  generate_hint: generateHint,
  summarize,
  cluster_similar: clusterSimilar,
  check_sentiment: checkSentiment,
  generate_content: generateContent,
  validate_design: validateDesign,
};

const READS_CONTEXT = new Set<ContentActionType>(['summarize', 'cluster_similar', 'validate_design']);

/** What an action reads: the subject, the params, and the scope's objects where it uses them. */
function charsRead(request: ContentRequest): number {
  const subject = request.subject ? textOf(request.subject).length : 0;
  const context = READS_CONTEXT.has(request.action) ? request.objects.reduce((sum, object) => sum + textOf(object).length, 0) : 0;
  return subject + context + JSON.stringify(request.params ?? {}).length;
}

function textOf(object: BoardObject): string {
  return objectText(object).slice(0, MAX_TEXT_READ);
}

function answerText(request: ContentRequest): string {
  return request.subject ? textOf(request.subject) : (stringParam(request.params, 'text') ?? '').slice(0, MAX_TEXT_READ);
}

function stringParam(params: Record<string, unknown>, key: string): string | null {
  const value = params[key];
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function stringListParam(params: Record<string, unknown>, key: string): string[] {
  const value = params[key];
  const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return list.filter((item): item is string => typeof item === 'string' && item.trim() !== '').slice(0, MAX_LIST_PARAM);
}

/** A number param clamped into [min, max]; `fallback` when absent or not a finite number. */
function numberParam(params: Record<string, unknown>, key: string, min: number, max: number, fallback: number): number {
  const value = params[key];
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
const withoutFinalStop = (text: string) => text.trim().replace(/[.!?]+$/, '');

// ── evaluate_answer ──────────────────────────────────────────────────────────────────────

/** Words of an answer that earn full marks for effort when there is nothing to compare with. */
const EFFORT_WORDS = 25;

function evaluateAnswer(request: ContentRequest): RuleAnswer<'evaluate_answer'> {
  const { params } = request;
  const caseSensitive = params.caseSensitive === true;
  const expected = stringListParam(params, 'expected');
  const keywords = stringListParam(params, 'keywords');
  const answer = answerText(request);
  const evaluation = (correct: boolean | null, score: number, feedback: string, reasoning: string) => ({
    output: { action: 'evaluate_answer' as const, correct, score: round(score, 2), feedback },
    reasoning,
  });
  const words = wordsOf(answer).length;
  if (expected.length === 0 && keywords.length === 0) {
    const reasoning = `No expected answer; scored the effort of ${plural(words, 'word')}.`;
    return evaluation(null, Math.min(1, words / EFFORT_WORDS), effortFeedback(words), reasoning);
  }
  if (words === 0) return evaluation(false, 0, 'No answer yet: write yours on the note.', 'The subject has no text to evaluate.');
  if (expected.some((candidate) => sameAnswer(answer, candidate, caseSensitive))) {
    return evaluation(true, 1, 'Correct, well done!', 'The answer matches an expected answer.');
  }
  // A number is right or wrong as a whole: "3 5" must not cover the words of "3.5".
  const phraseLists = keywords.length > 0 ? [keywords] : expected.filter((e) => numberOf(e) === null).map((e) => keyWordsOf(e, caseSensitive));
  const { found, total } = bestCoverage(matchWords(answer, caseSensitive), phraseLists, caseSensitive);
  const score = found / total;
  const passed = score >= numberParam(params, 'passScore', 0, 1, 1);
  const covered = `${found} of ${plural(total, 'key word')}`;
  const feedback = passed
    ? `Correct: your answer covers ${covered}.`
    : score >= 0.5
      ? `Good start: your answer covers ${covered}. Add a little more detail.`
      : `Not quite yet: your answer covers ${covered}. Look at the question again.`;
  return evaluation(passed, score, feedback, `The answer covers ${covered} (${keywords.length > 0 ? 'keywords' : 'expected answer'}).`);
}

/** The phrase list the answer covers best, as found / total (total ≥ 1). */
function bestCoverage(answerWords: string[], phraseLists: string[][], caseSensitive: boolean): { found: number; total: number } {
  let best: { found: number; total: number } | null = null;
  for (const phrases of phraseLists) {
    const found = phrases.filter((phrase) => containsPhrase(answerWords, matchWords(phrase, caseSensitive))).length;
    const total = Math.max(1, phrases.length);
    if (!best || found / total > best.found / best.total) best = { found, total };
  }
  return best ?? { found: 0, total: 1 };
}

function effortFeedback(words: number): string {
  if (words === 0) return 'Give it a try: write your answer on the note.';
  if (words < 5) return 'Thanks for your answer! Can you explain a little more?';
  if (words < EFFORT_WORDS) return 'Thanks, good effort! One more example or reason would make it even stronger.';
  return 'Thank you for such a thorough answer!';
}

// ── generate_hint ────────────────────────────────────────────────────────────────────────

function generateHint(request: ContentRequest): RuleAnswer<'generate_hint'> {
  const { params, agent } = request;
  const level = Math.round(numberParam(params, 'level', 1, 3, 1));
  const expected = stringListParam(params, 'expected');
  const keywords = stringListParam(params, 'keywords');
  const answer = answerText(request);
  const gentle = nudge(stringParam(params, 'topic'), agent.goals[0], answer);
  const hint =
    level === 1
      ? gentle
      : level === 2
        ? (shapeHint(expected[0], keywords, answer) ?? `${gentle} Break it into smaller steps.`)
        : revealHint(expected, keywords);
  return {
    output: { action: 'generate_hint', hint: truncate(level < 3 ? maskAnswers(hint, expected) : hint, 1_000) },
    reasoning: `A level ${level} hint${expected.length > 0 ? ' towards the expected answer' : ''}.`,
  };
}

function nudge(topic: string | null, goal: string | undefined, answer: string): string {
  const focus = topic
    ? `Think about ${withoutFinalStop(topic)}.`
    : goal
      ? `Keep the goal in mind: ${withoutFinalStop(goal)}.`
      : 'Read the question again carefully.';
  const next = wordsOf(answer).length > 0 ? 'Look at your answer once more: what is still missing?' : 'Start by writing down what you already know.';
  return `${focus} ${next}`;
}

/** Level 2: how the answer is built and how far the participant got, never the answer itself. */
function shapeHint(expected: string | undefined, keywords: string[], answer: string): string | null {
  const answerWords = matchWords(answer);
  const has = (phrase: string) => containsPhrase(answerWords, matchWords(phrase));
  if (expected !== undefined) {
    const words = wordsOf(expected);
    const letter = firstLetter(words[0]);
    const shape =
      numberOf(expected) !== null
        ? 'The answer is a number.'
        : words.length === 1
          ? `The answer is one word${letter ? `, starting with "${letter}"` : ''}.`
          : `The answer has ${words.length} words${letter ? `; the first starts with "${letter}"` : ''}.`;
    const keyWords = keyWordsOf(expected);
    const found = keyWords.filter(has).length;
    return found > 0 ? `${shape} You already have ${found} of ${plural(keyWords.length, 'key word')}.` : shape;
  }
  if (keywords.length === 0) return null;
  const missing = keywords.filter((keyword) => !has(keyword));
  const letter = firstLetter(missing[0]);
  const clue = letter ? ` One of the missing ones starts with "${letter}".` : '';
  return `A complete answer covers ${plural(keywords.length, 'key idea')}; you have ${keywords.length - missing.length}.${clue}`;
}

/** A word's first letter, only for words long enough that one letter gives nothing away. */
function firstLetter(word: string | undefined): string | null {
  return word && word.length >= 4 ? word.charAt(0).toUpperCase() : null;
}

function revealHint(expected: string[], keywords: string[]): string {
  if (expected.length > 0) return `The answer is: ${expected.join(' or ')}.`;
  if (keywords.length > 0) return `A complete answer mentions: ${keywords.join(', ')}.`;
  return 'Break the question into smaller steps, and ask for help if you are stuck.';
}

/** Blanks out every expected answer (whole words, any case) that a topic or goal might contain. */
function maskAnswers(hint: string, expected: string[]): string {
  return [...expected]
    .sort((a, b) => b.length - a.length)
    .reduce((text, answer) => {
      const literal = answer.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return literal === '' ? text : text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${literal}(?![\\p{L}\\p{N}])`, 'giu'), '…');
    }, hint);
}

// ── summarize ────────────────────────────────────────────────────────────────────────────

const MAX_POINT_CHARS = 300;

function summarize(request: ContentRequest): RuleAnswer<'summarize'> {
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

function clusterSimilar(request: ContentRequest): RuleAnswer<'cluster_similar'> {
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

// ── check_sentiment ──────────────────────────────────────────────────────────────────────

/** Kept short and mild on purpose: a teacher adds their own through `blockedWords`. */
const ABUSIVE_PHRASES = ['stupid', 'idiot', 'dumb', 'hate', 'shut up', 'loser'];
const SENTIMENT_THRESHOLD = 0.05;

function checkSentiment(request: ContentRequest): RuleAnswer<'check_sentiment'> {
  const text = answerText(request);
  const { score, positives, negatives } = lexiconSentiment(wordsOf(text));
  const sentiment = score >= SENTIMENT_THRESHOLD ? 'positive' : score <= -SENTIMENT_THRESHOLD ? 'negative' : 'neutral';
  const words = matchWords(text);
  const found = (phrases: string[]) => phrases.filter((phrase) => containsPhrase(words, matchWords(phrase)));
  const abusive = found(ABUSIVE_PHRASES);
  const blocked = found(stringListParam(request.params, 'blockedWords')).filter((phrase) => !abusive.includes(phrase.toLowerCase()));
  const listed = (label: string, items: string[]) =>
    items.length > 0 ? [truncate(`${label}: ${[...new Set(items)].slice(0, 10).join(', ')}`, 500)] : [];
  const reasons = [
    ...listed('abusive language', abusive),
    ...listed('blocked words', blocked),
    ...listed('positive words', positives),
    ...listed('negative words', negatives),
  ];
  const flagged = abusive.length + blocked.length > 0;
  return {
    output: { action: 'check_sentiment', sentiment, score, flagged, reasons },
    reasoning: `Lexicon score ${score} (${sentiment})${flagged ? ', flagged for its wording' : ''}.`,
  };
}

// ── generate_content ─────────────────────────────────────────────────────────────────────

const STYLES = ['sticky', 'mindmap', 'list', 'grid'] as const;
type Style = (typeof STYLES)[number];
const NOTE_SIZE = 200;
const CELL = NOTE_SIZE + 20;
const STICKY_COLUMNS = 5;
const LIST_ITEM = { width: 320, height: 80, step: 100 };
const MAX_ITEM_CHARS = 500;

function generateContent(request: ContentRequest): RuleAnswer<'generate_content'> {
  const { params } = request;
  const prompt = (stringParam(params, 'prompt') ?? answerText(request)).slice(0, MAX_PROMPT_CHARS).trim();
  if (prompt === '') throw new ContentEngineError('generate_content needs params.prompt (or a subject with text)', 0);
  const style: Style = STYLES.find((candidate) => candidate === params.style) ?? 'sticky';
  const count = typeof params.count === 'number' ? Math.round(numberParam(params, 'count', 1, MAX_GENERATED_OBJECTS, 1)) : null;
  // A mindmap's topic takes one of the object slots.
  const { topic, items } = promptItems(prompt, count, style === 'mindmap' ? MAX_GENERATED_OBJECTS - 1 : MAX_GENERATED_OBJECTS);
  const objects = layOut(style, topic, items, truncate(stringParam(params, 'objectType') ?? 'sticky', 100));
  return {
    output: { action: 'generate_content', objects },
    reasoning: `${plural(objects.length, 'note')} laid out as ${style}${topic ? ` about "${truncate(topic, 80)}"` : ''}.`,
  };
}

/** Positions are top-left corners relative to the origin; the first object sits at the origin. */
function layOut(style: Style, topic: string | null, items: string[], type: string): GeneratedObject[] {
  const note = (text: string, x: number, y: number, width = NOTE_SIZE, height = NOTE_SIZE): GeneratedObject => ({
    type,
    data: { text: truncate(text, MAX_ITEM_CHARS) },
    position: { x, y },
    width,
    height,
  });
  const inGrid = (columns: number) => items.map((text, i) => note(text, (i % columns) * CELL, Math.floor(i / columns) * CELL));
  switch (style) {
    case 'sticky':
      return inGrid(STICKY_COLUMNS);
    case 'grid':
      return inGrid(Math.ceil(Math.sqrt(items.length)));
    case 'list':
      return items.map((text, i) => note(text, 0, i * LIST_ITEM.step, LIST_ITEM.width, LIST_ITEM.height));
    case 'mindmap': {
      const [center = '', ...branches] = topic ? [topic, ...items] : items;
      // The ring grows with the number of branches so neighbouring notes never overlap.
      const radius = Math.max(2 * CELL, Math.ceil((branches.length * CELL) / (2 * Math.PI)));
      const angle = (i: number) => -Math.PI / 2 + (2 * Math.PI * i) / branches.length;
      const around = branches.map((text, i) => note(text, Math.round(radius * Math.cos(angle(i))), Math.round(radius * Math.sin(angle(i)))));
      return [note(center, 0, 0), ...around];
    }
  }
}

// ── validate_design ──────────────────────────────────────────────────────────────────────

function validateDesign(request: ContentRequest): RuleAnswer<'validate_design'> {
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
