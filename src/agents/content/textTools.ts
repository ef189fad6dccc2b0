import type { BoardObject } from '../../boards/boardObjects.js';

/**
 * Small, deterministic text helpers shared by the content engines. Words are Unicode letters
 * and digits (an inner apostrophe kept, so "isn't" stays one word); every function is linear
 * in its input, with no regular expression that can backtrack.
 */

/** The text an object shows: `data.text`, else `data.title`, `data.content` or `data.label`. */
export function objectText(object: BoardObject): string {
  const data = object.data ?? {};
  for (const key of ['text', 'title', 'content', 'label']) {
    const value = data[key];
    if (typeof value === 'string') return value;
  }
  return '';
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** The words of a text, lower-cased unless `caseSensitive`; apostrophes normalised to '. */
export function wordsOf(text: string, caseSensitive = false): string[] {
  const normalized = text.normalize('NFKC');
  const words = (caseSensitive ? normalized : normalized.toLowerCase()).match(WORD) ?? [];
  return words.map((word) => word.replace(/’/g, "'"));
}

/** Words a grouping or a summary should ignore. */
const STOP_WORDS = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers him his how ' +
    'i if in into is it its itself just let me more most my no nor not of off on once only or other our ours out over own ' +
    're same she should so some such than that the their theirs them then there these they this those through to too ' +
    'under until up us very was we were what when where which while who whom why will with would you your yours ' +
    "i'm it's don't doesn't isn't aren't can't won't we're they're you're that's there's"
  ).split(' '),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

/** Plural "s" dropped so "costs" and "cost" meet; "ss", "us" and "is" endings are kept. */
function stem(word: string): string {
  return word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word) ? word.slice(0, -1) : word;
}

/** Words as compared when matching answers and phrases: stemmed, lower-cased unless `caseSensitive`. */
export function matchWords(text: string, caseSensitive = false): string[] {
  return wordsOf(text, caseSensitive).map(stem);
}

/** Lower-cased, stemmed words that carry meaning: no stop words, no single letters. */
export function contentWords(text: string): string[] {
  return wordsOf(text)
    .filter((word) => !STOP_WORDS.has(word) && (word.length > 1 || /\p{N}/u.test(word)))
    .map(stem);
}

/** Sentences of a text: split after . ! ? and at line breaks; blanks dropped. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** |a ∩ b| / |a ∪ b|; 0 when both are empty. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const word of small) if (large.has(word)) shared += 1;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}

/** Whether `phrase` (one or more words) occurs in `words` as whole words, in order. */
export function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0 || phrase.length > words.length) return false;
  for (let start = 0; start + phrase.length <= words.length; start += 1) {
    if (phrase.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}

/** The text cut to `max` characters, the cut marked with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** Words ranked by count, most first, ties alphabetical (so results never depend on order). */
export function topWords(counts: ReadonlyMap<string, number>, limit: number, minCount = 1): string[] {
  return [...counts]
    .filter(([, count]) => count >= minCount)
    .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit)
    .map(([word]) => word);
}

/** Adds one to each word's count. */
export function countWords(counts: Map<string, number>, words: Iterable<string>): void {
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
}

/** The number a whole answer states ("3.5", "3,5", "-2."), or null when it is not just a number. */
export function numberOf(text: string): number | null {
  const trimmed = text.trim().replace(/\.$/, '');
  return /^[-+]?(?:\d+(?:[.,]\d+)?|[.,]\d+)$/.test(trimmed) ? Number(trimmed.replace(',', '.')) : null;
}

/** "3.50" is "3.5"; otherwise equal words, ignoring case (unless asked), punctuation and spacing. */
export function sameAnswer(answer: string, expected: string, caseSensitive = false): boolean {
  const [a, b] = [numberOf(answer), numberOf(expected)];
  if (a !== null || b !== null) return a === b;
  const words = wordsOf(answer, caseSensitive).join(' ');
  return words !== '' && words === wordsOf(expected, caseSensitive).join(' ');
}

/** The words of an expected answer that matter when it is not matched exactly: stop words go, unless that leaves none. */
export function keyWordsOf(expected: string, caseSensitive = false): string[] {
  const words = wordsOf(expected, caseSensitive);
  const meaningful = words.filter((word) => !isStopWord(word));
  return [...new Set(meaningful.length > 0 ? meaningful : words)];
}

const IDEAS_ABOUT = /^(?:(\d{1,2})\s+)?(?:ideas?|topics?|questions?|notes?|points?|things?)\s+(?:about|on|for)\s+(.+)$/i;
const TEMPLATES = [
  'why it matters',
  'key questions',
  'examples',
  'risks',
  'opportunities',
  'who is involved',
  'first steps',
  'resources needed',
  'how to measure success',
  'open issues',
];
/** Template notes an "ideas about X" prompt gets when it names no number. */
const DEFAULT_IDEAS = 5;

/**
 * The items a prompt asks for: one per line (bullets and numbering dropped), else one per comma
 * or semicolon, else `count` (or the prompt's own number, or 5) templates for "ideas about X"
 * or, with a count above one, for the prompt as a topic. At most `max` items.
 */
export function promptItems(prompt: string, count: number | null, max: number): { topic: string | null; items: string[] } {
  const lines = prompt
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/^(?:[-*•]|\d{1,3}[.)])\s+/, '').trim())
    .filter((line) => line !== '');
  const limit = Math.min(max, count ?? max);
  if (lines.length > 1) return { topic: null, items: lines.slice(0, limit) };
  const line = lines[0] ?? prompt.trim();
  const about = IDEAS_ABOUT.exec(line);
  const templated = (topic: string, n: number) =>
    Array.from({ length: Math.min(max, n) }, (_, index) => `${topic}: ${TEMPLATES[index] ?? `idea ${index + 1}`}`);
  if (about?.[2]) {
    const topic = about[2].trim().replace(/[.!?]+$/, '');
    return { topic, items: templated(topic, count ?? Number(about[1] ?? DEFAULT_IDEAS)) };
  }
  const parts = line
    .split(/[,;]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length > 1) return { topic: null, items: parts.slice(0, limit) };
  return count !== null && count > 1 ? { topic: line, items: templated(line, count) } : { topic: null, items: [line] };
}

const POSITIVE_WORDS = new Set(
  (
    'good great excellent awesome amazing fantastic brilliant perfect wonderful nice love enjoy enjoyed happy glad fun ' +
    'interesting helpful useful clear cool best better thanks thank agree'
  ).split(' '),
);
const NEGATIVE_WORDS = new Set(
  (
    'bad terrible awful horrible hate dislike boring confusing confused wrong poor worst worse sad angry annoying useless ' +
    'difficult fail failed problem ugly disagree unclear frustrating stuck'
  ).split(' '),
);
const NEGATORS = new Set("not no never hardly nothing cannot isn't wasn't aren't don't doesn't didn't can't won't".split(' '));
const INTENSIFIERS = new Set('very really extremely so super totally absolutely incredibly truly'.split(' '));
/** A negator reaches this many words ahead ("not a very good"). */
const NEGATION_SCOPE = 3;
/** A negated word counts for this share, reversed (VADER's constant): "not good" is mildly negative. */
const NEGATION_FACTOR = 0.74;
const INTENSIFIER_BOOST = 1.5;
const MAX_BOOST = 3;
/** Normalises a sum of word scores into -1..1 (VADER's alpha). */
const NORMALIZATION_ALPHA = 15;

export interface LexiconSentiment {
  /** -1..1, rounded to three decimals. */
  score: number;
  /** The words that counted, "not good" for a negated one. */
  positives: string[];
  negatives: string[];
}

/** A lexicon score of lower-cased words (wordsOf), with negation and intensifiers. */
export function lexiconSentiment(words: readonly string[]): LexiconSentiment {
  let total = 0;
  let negatedFor = 0;
  let boost = 1;
  const positives: string[] = [];
  const negatives: string[] = [];
  for (const word of words) {
    const polarity = POSITIVE_WORDS.has(word) ? 1 : NEGATIVE_WORDS.has(word) ? -1 : 0;
    if (polarity !== 0) {
      const value = polarity * boost * (negatedFor > 0 ? -NEGATION_FACTOR : 1);
      total += value;
      (value > 0 ? positives : negatives).push(negatedFor > 0 ? `not ${word}` : word);
      [negatedFor, boost] = [0, 1];
    } else if (NEGATORS.has(word)) {
      negatedFor = NEGATION_SCOPE;
    } else if (INTENSIFIERS.has(word)) {
      boost = Math.min(MAX_BOOST, boost * INTENSIFIER_BOOST);
    } else {
      [negatedFor, boost] = [Math.max(0, negatedFor - 1), 1];
    }
  }
  const score = Math.round((total / Math.sqrt(total * total + NORMALIZATION_ALPHA)) * 1000) / 1000;
  return { score, positives, negatives };
}
