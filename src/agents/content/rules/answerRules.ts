import type { ContentRequest } from '../contentTypes.js';
import { containsPhrase, keyWordsOf, matchWords, numberOf, sameAnswer, truncate, wordsOf } from '../textTools.js';
import { answerText, numberParam, plural, round, stringListParam, stringParam, withoutFinalStop, type RuleAnswer } from './ruleInputs.js';

/** The rules that judge one participant's answer: evaluate_answer and generate_hint. */

// ── evaluate_answer ──────────────────────────────────────────────────────────────────────

/** Words of an answer that earn full marks for effort when there is nothing to compare with. */
const EFFORT_WORDS = 25;

export function evaluateAnswer(request: ContentRequest): RuleAnswer<'evaluate_answer'> {
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

export function generateHint(request: ContentRequest): RuleAnswer<'generate_hint'> {
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
