import type { BoardObject } from '../../boards/boardObjects.js';

/**
 * The contract between the agent runtime and the engines that compute "content actions": the
 * actions whose result is text or layout (a score, a hint, clusters…) rather than a direct
 * board edit. Two engines implement it: the built-in rules (offline) and an LLM.
 */
export const CONTENT_ACTIONS = [
  'evaluate_answer',
  'generate_hint',
  'summarize',
  'cluster_similar',
  'check_sentiment',
  'generate_content',
  'validate_design',
] as const;

export type ContentActionType = (typeof CONTENT_ACTIONS)[number];

export function isContentAction(value: unknown): value is ContentActionType {
  return typeof value === 'string' && (CONTENT_ACTIONS as readonly string[]).includes(value);
}

/** Longest string in any output. */
export const MAX_OUTPUT_TEXT = 2_000;
/** Most items in any output list (points, clusters, reasons, issues). */
export const MAX_OUTPUT_ITEMS = 50;
/** Most objects one generate_content may propose. */
export const MAX_GENERATED_OBJECTS = 20;
/** Most context objects a request carries; also the most ids one cluster may list. */
export const MAX_CONTEXT_OBJECTS = 200;
/** Generated positions stay this close to the origin the caller picks. */
export const MAX_GENERATED_OFFSET = 100_000;

/** What an engine knows about the agent it works for. */
export interface AgentBrief {
  name: string;
  persona: string;
  description: string;
  goals: string[];
  rules: string[];
}

export interface ContentRequest {
  action: ContentActionType;
  /** The trigger's or schedule entry's `params`, action-specific (see ruleEngine.ts). */
  params: Record<string, unknown>;
  agent: AgentBrief;
  /** The object the triggering event is about, if any. */
  subject: BoardObject | null;
  /** Objects in the agent's scope, at most MAX_CONTEXT_OBJECTS. */
  objects: BoardObject[];
}

export interface EvaluateAnswerOutput {
  action: 'evaluate_answer';
  /** null when there is no expected answer to compare with. */
  correct: boolean | null;
  /** 0..1 */
  score: number;
  feedback: string;
}

export interface GenerateHintOutput {
  action: 'generate_hint';
  hint: string;
}

export interface SummarizeOutput {
  action: 'summarize';
  summary: string;
  points: string[];
}

export interface ClusterSimilarOutput {
  action: 'cluster_similar';
  clusters: Array<{ label: string; objectIds: string[] }>;
}

export interface CheckSentimentOutput {
  action: 'check_sentiment';
  sentiment: 'positive' | 'neutral' | 'negative';
  /** -1..1 */
  score: number;
  flagged: boolean;
  reasons: string[];
}

/** An object to create; `position` is its top-left corner relative to an origin the caller picks. */
export interface GeneratedObject {
  type: string;
  data: Record<string, unknown>;
  position: { x: number; y: number };
  width?: number;
  height?: number;
}

export interface GenerateContentOutput {
  action: 'generate_content';
  objects: GeneratedObject[];
}

export interface ValidateDesignOutput {
  action: 'validate_design';
  valid: boolean;
  /** `objectId` null: the issue is about the board as a whole. */
  issues: Array<{ objectId: string | null; message: string }>;
}

export type ContentOutput =
  | EvaluateAnswerOutput
  | GenerateHintOutput
  | SummarizeOutput
  | ClusterSimilarOutput
  | CheckSentimentOutput
  | GenerateContentOutput
  | ValidateDesignOutput;

export type ContentOutputOf<A extends ContentActionType> = Extract<ContentOutput, { action: A }>;

export interface ContentResult {
  output: ContentOutput;
  /** Provider tokens (LLM) or token equivalents, ceil(chars / 4) (rules). */
  tokensUsed: number;
  /** One short sentence saying why, for the action log. */
  reasoning: string;
}

export interface ContentEngine {
  readonly kind: 'rules' | 'llm';
  /** Upper bound of the tokens `run` may spend on this request (budget check before a call). */
  estimateTokens(request: ContentRequest): number;
  run(request: ContentRequest, options?: { signal?: AbortSignal }): Promise<ContentResult>;
}

/** A content action that failed; tokens already spent (a paid but unusable answer) still count. */
export class ContentEngineError extends Error {
  constructor(
    message: string,
    readonly tokensUsed: number,
  ) {
    super(message);
    this.name = 'ContentEngineError';
  }
}

const text = (maxLength = MAX_OUTPUT_TEXT) => ({ type: 'string', maxLength });
const list = (items: object, maxItems = MAX_OUTPUT_ITEMS) => ({ type: 'array', items, maxItems });
const record = (properties: Record<string, object>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const output = (action: ContentActionType, properties: Record<string, object>) => record({ action: { const: action }, ...properties });
const coordinate = { type: 'number', minimum: -MAX_GENERATED_OFFSET, maximum: MAX_GENERATED_OFFSET };
const size = { type: 'number', exclusiveMinimum: 0, maximum: 10_000 };

/** Shallow on purpose: generated objects carry text and flags, never nested structures. */
const generatedData = {
  type: 'object',
  maxProperties: 20,
  propertyNames: { maxLength: 100 },
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: MAX_OUTPUT_TEXT },
};
const generatedObject = {
  type: 'object',
  properties: {
    type: { type: 'string', minLength: 1, maxLength: 100 },
    data: generatedData,
    position: record({ x: coordinate, y: coordinate }),
    width: size,
    height: size,
  },
  required: ['type', 'data', 'position'],
  additionalProperties: false,
};

/**
 * JSON schemas of each action's output (with `action` set), bounded so that no answer, from
 * a model or the rules, can carry more than a few kilobytes onto a board.
 */
export const CONTENT_OUTPUT_SCHEMAS: Record<ContentActionType, object> = {
  evaluate_answer: output('evaluate_answer', {
    correct: { type: ['boolean', 'null'] },
    score: { type: 'number', minimum: 0, maximum: 1 },
    feedback: text(),
  }),
  generate_hint: output('generate_hint', { hint: text() }),
  summarize: output('summarize', { summary: text(), points: list(text()) }),
  cluster_similar: output('cluster_similar', {
    clusters: list(record({ label: text(200), objectIds: list(text(200), MAX_CONTEXT_OBJECTS) })),
  }),
  check_sentiment: output('check_sentiment', {
    sentiment: { enum: ['positive', 'neutral', 'negative'] },
    score: { type: 'number', minimum: -1, maximum: 1 },
    flagged: { type: 'boolean' },
    reasons: list(text(500)),
  }),
  generate_content: output('generate_content', { objects: list(generatedObject, MAX_GENERATED_OBJECTS) }),
  validate_design: output('validate_design', {
    valid: { type: 'boolean' },
    issues: list(record({ objectId: { type: ['string', 'null'], maxLength: 200 }, message: text(500) })),
  }),
};
