import type { ActionDefinition } from './action.js';
import { checkSentiment, evaluateAnswer, generateHint } from './contentAssessment.js';
import { clusterSimilar, generateContent, summarize, validateDesign } from './contentBoard.js';

/**
 * The content actions: the content engine (rules or LLM) computes a score, a hint, clusters…
 * and these actions land the answer on the board, as objects, moves or notifications, always
 * through the domain services so the agent's zone rights apply. Answer-centred ones live in
 * contentAssessment.ts, board-wide ones in contentBoard.ts.
 */

export { checkSentiment, clusterSimilar, evaluateAnswer, generateContent, generateHint, summarize, validateDesign };

export const CONTENT_ACTION_DEFINITIONS: ActionDefinition[] = [evaluateAnswer, generateHint, summarize, clusterSimilar, checkSentiment, generateContent, validateDesign];
