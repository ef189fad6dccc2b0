import { ContentEngineError, MAX_GENERATED_OBJECTS, type ContentRequest, type GeneratedObject } from '../contentTypes.js';
import { NOTE_TYPE, noteHeight } from '../noteLayout.js';
import { containsPhrase, lexiconSentiment, matchWords, promptItems, truncate, wordsOf } from '../textTools.js';
import { answerText, numberParam, plural, stringListParam, stringParam, type RuleAnswer } from './ruleInputs.js';

/** The rules that work on one text: check_sentiment (its tone) and generate_content (notes from it). */

/** A prompt longer than this is cut before it is split into notes. */
const MAX_PROMPT_CHARS = 2_000;

// ── check_sentiment ──────────────────────────────────────────────────────────────────────

/** Kept short and mild on purpose: a teacher adds their own through `blockedWords`. */
const ABUSIVE_PHRASES = ['stupid', 'idiot', 'dumb', 'hate', 'shut up', 'loser'];
const SENTIMENT_THRESHOLD = 0.05;

export function checkSentiment(request: ContentRequest): RuleAnswer<'check_sentiment'> {
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
const GAP = 20;
const STICKY_COLUMNS = 5;
const LIST_ITEM = { width: 320, height: 80 };
const MAX_ITEM_CHARS = 500;

export function generateContent(request: ContentRequest): RuleAnswer<'generate_content'> {
  const { params } = request;
  const prompt = (stringParam(params, 'prompt') ?? answerText(request)).slice(0, MAX_PROMPT_CHARS).trim();
  if (prompt === '') throw new ContentEngineError('generate_content needs params.prompt (or a subject with text)', 0);
  const style: Style = STYLES.find((candidate) => candidate === params.style) ?? 'sticky';
  const count = typeof params.count === 'number' ? Math.round(numberParam(params, 'count', 1, MAX_GENERATED_OBJECTS, 1)) : null;
  // A mindmap's topic takes one of the object slots.
  const { topic, items } = promptItems(prompt, count, style === 'mindmap' ? MAX_GENERATED_OBJECTS - 1 : MAX_GENERATED_OBJECTS);
  const objects = layOut(style, topic, items, truncate(stringParam(params, 'objectType') ?? NOTE_TYPE, 100));
  return {
    output: { action: 'generate_content', objects },
    reasoning: `${plural(objects.length, 'note')} laid out as ${style}${topic ? ` about "${truncate(topic, 80)}"` : ''}.`,
  };
}

/**
 * Positions are top-left corners relative to the origin; the first object sits at the origin.
 * Every note of a layout takes the height of the one with the most text, so each shows its
 * whole text and none covers another.
 */
function layOut(style: Style, topic: string | null, items: string[], type: string): GeneratedObject[] {
  const texts = [...(topic ? [topic] : []), ...items].map((text) => truncate(text, MAX_ITEM_CHARS));
  const tallest = (width: number, least: number) => Math.max(least, ...texts.map((text) => noteHeight(text, width)));
  const rowHeight = tallest(NOTE_SIZE, NOTE_SIZE);
  const note = (text: string, x: number, y: number, width = NOTE_SIZE, height = rowHeight): GeneratedObject => ({
    type,
    data: { text: truncate(text, MAX_ITEM_CHARS) },
    position: { x, y },
    width,
    height,
  });
  const inGrid = (columns: number) => items.map((text, i) => note(text, (i % columns) * (NOTE_SIZE + GAP), Math.floor(i / columns) * (rowHeight + GAP)));
  const cell = Math.max(NOTE_SIZE, rowHeight) + GAP;
  switch (style) {
    case 'sticky':
      return inGrid(STICKY_COLUMNS);
    case 'grid':
      return inGrid(Math.ceil(Math.sqrt(items.length)));
    case 'list': {
      const itemHeight = tallest(LIST_ITEM.width, LIST_ITEM.height);
      return items.map((text, i) => note(text, 0, i * (itemHeight + GAP), LIST_ITEM.width, itemHeight));
    }
    case 'mindmap': {
      const [center = '', ...branches] = topic ? [topic, ...items] : items;
      // The ring grows with the number of branches so neighbouring notes never overlap.
      const radius = Math.max(2 * cell, Math.ceil((branches.length * cell) / (2 * Math.PI)));
      const angle = (i: number) => -Math.PI / 2 + (2 * Math.PI * i) / branches.length;
      const around = branches.map((text, i) => note(text, Math.round(radius * Math.cos(angle(i))), Math.round(radius * Math.sin(angle(i)))));
      return [note(center, 0, 0), ...around];
    }
  }
}
