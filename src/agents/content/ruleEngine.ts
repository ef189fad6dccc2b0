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
import {
  ContentEngineError,
  isContentAction,
  type ContentActionType,
  type ContentEngine,
  type ContentRequest,
  type ContentResult,
} from './contentTypes.js';
import { evaluateAnswer, generateHint } from './rules/answerRules.js';
import { clusterSimilar, summarize, validateDesign } from './rules/boardRules.js';
import { textOf, type RuleAnswer } from './rules/ruleInputs.js';
import { checkSentiment, generateContent } from './rules/textRules.js';

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
