import type { Instructions, Persona } from '../agent.js';

/** A ready-to-use agent: POST its `name`, `persona` and `instructions` to `/boards/<id>/agents`. */
export interface AgentPreset {
  persona: Persona;
  name: string;
  summary: string;
  instructions: Instructions;
  maxActionsPerMinute: number;
  priority: number;
  /** What to change before using it (the expected answers, the frames, the times…). */
  adapt: string[];
}

/**
 * The presets of the five personas. Each works as given on the built-in rule engine; the
 * `adapt` notes say what a teacher fills in for a real lesson.
 */
export const PRESETS: Record<Persona, AgentPreset> = {
  tutor: {
    persona: 'tutor',
    name: 'Tutor',
    summary: "Checks each student's answer against the expected one, leaves a hint beside a wrong answer, and tells the teacher.",
    maxActionsPerMinute: 20,
    priority: 7,
    instructions: {
      description: 'A patient tutor who checks answers and gives progressively clearer hints without giving the answer away.',
      goals: ['Every student reaches the correct answer', 'Hints guide, they never give the answer at once'],
      rules: ['Only react to answers written by students', 'Never reveal the expected answer before the third hint'],
      triggers: [
        {
          event: 'object:created',
          condition: "object.type == 'answer' || object.data.kind == 'answer'",
          action: 'evaluate_answer',
          params: { expected: ['42'], notifyTeacher: true },
        },
        {
          event: 'object:updated',
          condition: "object.type == 'answer' || object.data.kind == 'answer'",
          action: 'generate_hint',
          params: { expected: ['42'], topic: 'the question of the frame' },
        },
      ],
      schedule: [],
    },
    adapt: ['Set `expected` (and optionally `keywords`) to the answer of your question', 'Set scope.frames to the frames the tutor watches'],
  },
  moderator: {
    persona: 'moderator',
    name: 'Moderator',
    summary: 'Watches new and changed notes for abusive or very negative language, locks a flagged note and tells the teacher.',
    maxActionsPerMinute: 30,
    priority: 9,
    instructions: {
      description: 'Keeps the board a respectful place.',
      goals: ['No abusive language stays on the board unnoticed'],
      rules: ['Never delete on its own; lock and tell the teacher'],
      triggers: [
        { event: 'object:created', action: 'check_sentiment', params: { lockFlagged: true, blockedWords: [] } },
        { event: 'object:updated', action: 'check_sentiment', params: { lockFlagged: true, blockedWords: [] } },
      ],
      schedule: [],
    },
    adapt: ['Add words your class should not use to `blockedWords`'],
  },
  timer: {
    persona: 'timer',
    name: 'Timer',
    summary: 'Announces the time left during an activity and locks the board when the time is up.',
    maxActionsPerMinute: 10,
    priority: 5,
    instructions: {
      description: 'Keeps time for a ten-minute activity.',
      goals: ['Everyone knows how much time is left'],
      rules: [],
      triggers: [],
      schedule: [
        { at: '00:05:00', action: 'send_notification', params: { message: 'Five minutes left.', level: 'info' } },
        { at: '00:09:00', action: 'send_notification', params: { message: 'One minute left: finish your answer.', level: 'warning' } },
        { at: '00:10:00', action: 'lock_objects', params: { all: true } },
        { at: '00:10:00', action: 'notify_teacher', params: { message: 'Time is up: the board is locked.' } },
      ],
    },
    adapt: ['Change the times (elapsed from the start of the session) to your activity'],
  },
  facilitator: {
    persona: 'facilitator',
    name: 'Facilitator',
    summary: 'Nudges participants who have gone quiet, groups similar ideas every five minutes, and summarises the board for the teacher.',
    maxActionsPerMinute: 10,
    priority: 5,
    instructions: {
      description: 'Keeps a brainstorm moving and makes its results visible.',
      goals: ['Everyone contributes', 'Similar ideas end up together'],
      rules: ['Nudge a quiet participant at most once per quiet spell'],
      triggers: [
        {
          event: 'participant:idle',
          condition: "idleSeconds >= 120 && participant.role == 'guest'",
          action: 'send_notification',
          params: { to: 'participant', message: 'What do you think? Add one idea to the board.' },
        },
      ],
      schedule: [
        { at: 'every:5min', action: 'cluster_similar', params: { deliver: 'labels' } },
        { at: 'every:10min', action: 'summarize', params: { deliver: 'notification' } },
      ],
    },
    adapt: ['Set scope.frames to the brainstorm frame'],
  },
  custom: {
    persona: 'custom',
    name: 'Custom agent',
    summary: 'A starting point: greets each participant who joins. Replace the triggers with your own.',
    maxActionsPerMinute: 10,
    priority: 5,
    instructions: {
      description: 'Describe what this agent is for.',
      goals: [],
      rules: [],
      triggers: [
        {
          event: 'participant:joined',
          action: 'send_notification',
          params: { to: 'participant', message: 'Welcome, {{participant.user_id}}!' },
        },
      ],
      schedule: [],
    },
    adapt: ['Write your own triggers: event, condition, action, params'],
  },
};
