import { createHash } from 'node:crypto';
import type { Document, Extension, Hocuspocus, afterLoadDocumentPayload } from '@hocuspocus/server';
import * as encoding from 'lib0/encoding';
import { applyAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness';
import type { ActiveParticipant, AgentNotification, AgentPresence, AgentSockets, Recipients } from '../agents/ports.js';
import type { Clock } from '../clock.js';
import { isBoardDocument } from './documentContext.js';
import type { PresenceRegistry, ShownAgent } from './presenceRegistry.js';
import type { SocketMessenger } from './socketMessenger.js';
import type { SeatLedger } from '../store/seatLedger.js';
import type { ServerMessage } from './messages.js';
import type { BoardSeat } from './boardSeat.js';
import type { Audience } from './audience.js';
import { assertNever } from '../util/assertNever.js';

/** How often a shown agent's awareness state is renewed: y-protocols drops a remote state unrenewed for 30 s. */
const AWARENESS_RENEWAL_MS = 10_000;

/** The origin of the awareness changes made for agents: no connection's, so no one's activity. */
const AGENT_ORIGIN = 'agent-presence';

/**
 * The sockets of boards as agents reach them (agents/ports.ts): notifications and navigation
 * sent to the participants an agent names, the people connected and when they were last
 * active, and visible agents shown as participants (listed and counted, never a seat).
 */
export class AgentSocketsAdapter implements AgentSockets {
  constructor(
    private readonly deps: { registry: PresenceRegistry; seats: SeatLedger<BoardSeat>; messenger: SocketMessenger; awareness: AgentAwareness; clock: Clock },
  ) {}

  notify(boardId: string, notification: AgentNotification, recipients: Recipients): number {
    return this.deps.messenger.broadcast(boardId, { type: 'agent:notification', ...notification }, audienceOf(recipients));
  }

  /** With `all`, like a host's `frame:navigate`: every participant but the hosts, who do the steering. */
  navigate(boardId: string, frameId: string, smooth: boolean, from: string, recipients: Recipients): number {
    const audience: Audience = recipients.kind === 'all' ? { kind: 'participants', who: 'guests' } : audienceOf(recipients);
    return this.deps.messenger.broadcast(boardId, { type: 'frame:navigate', frameId, smooth, from }, audience);
  }

  participants(boardId: string): ActiveParticipant[] {
    return this.deps.registry.list(boardId).map((presence) => ({
      ...presence.view,
      ...(presence.location ? { location: presence.location } : {}),
      lastActiveAt: presence.lastActiveAt,
    }));
  }

  sessionStartedAt(boardId: string): Date | null {
    return this.deps.registry.session(boardId)?.startedAt ?? null;
  }

  showAgent(boardId: string, agentId: string, presence: AgentPresence | null): void {
    if (presence === null) return this.withdrawAgent(boardId, agentId);
    const { agent, appeared } = this.deps.registry.showAgent(boardId, agentId, presence, this.deps.clock.now());
    if (appeared) void this.announce(boardId, (participant_count) => ({ type: 'participant:joined', participant: agent.view, participant_count }));
    this.deps.awareness.show(boardId, agentId, agent);
  }

  private withdrawAgent(boardId: string, agentId: string): void {
    const agent = this.deps.registry.withdrawAgent(boardId, agentId);
    if (!agent) return;
    this.deps.awareness.withdraw(boardId, agentId);
    void this.announce(boardId, (participant_count) => ({ type: 'participant:left', user_id: agent.view.user_id, participant_count }));
  }

  /** Broadcasts an agent's joining or leaving with the board's participants counted: its seats (all instances') and agents. */
  private async announce(boardId: string, message: (participantCount: number) => ServerMessage): Promise<void> {
    const seated = await this.deps.seats.count(boardId).catch(() => this.deps.registry.list(boardId).length);
    this.deps.messenger.broadcast(boardId, message(seated + this.deps.registry.agentCount(boardId)));
  }
}

/** The sockets an agent's recipients name: admitted participants only. */
function audienceOf(recipients: Recipients): Audience {
  switch (recipients.kind) {
    case 'all':
      return { kind: 'participants', who: 'all' };
    case 'hosts':
      return { kind: 'participants', who: 'hosts' };
    case 'users':
      return { kind: 'users', userIds: recipients.userIds };
    default:
      return assertNever(recipients);
  }
}

/** A visible agent's awareness state, as providers read it (`provider.awareness.getStates()`). */
interface AgentAwarenessState {
  user: { id: string; name: string; color: string; agent: true; persona: string; isThinking: boolean };
}

/**
 * The awareness entries of visible agents: while an agent is shown and its board's document is
 * loaded, the document's awareness holds the agent under a client id of its own, so Hocuspocus
 * sends it to every provider like any peer's. Applied when the document loads, renewed before
 * peers would time it out, removed on withdrawal and shutdown.
 */
export class AgentAwareness implements Extension {
  extensionName = 'agent-awareness';
  private renewal: NodeJS.Timeout | null = null;

  constructor(
    private readonly hocuspocus: Hocuspocus,
    private readonly registry: PresenceRegistry,
  ) {}

  async afterLoadDocument({ documentName, document }: afterLoadDocumentPayload): Promise<void> {
    if (!isBoardDocument(documentName)) return;
    for (const [agentId, agent] of this.registry.shownAgents(documentName)) applyAgentState(document, agentId, stateOf(agent));
  }

  /** Sets the agent's entry at once when it changed, and keeps it renewed while shown. */
  show(boardId: string, agentId: string, agent: ShownAgent): void {
    const document = this.loaded(boardId);
    const state = stateOf(agent);
    if (document && JSON.stringify(heldState(document, agentId)) !== JSON.stringify(state)) applyAgentState(document, agentId, state);
    this.renewal ??= setInterval(() => this.renew(), AWARENESS_RENEWAL_MS).unref();
  }

  withdraw(boardId: string, agentId: string): void {
    const document = this.loaded(boardId);
    if (document) removeAwarenessStates(document.awareness, [awarenessClientIdOf(agentId, document)], AGENT_ORIGIN);
    if (this.registry.boardsWithAgents().length === 0) this.stopRenewal();
  }

  /** Removes every agent's entry from the loaded documents (shutdown). */
  close(): void {
    this.stopRenewal();
    for (const boardId of this.registry.boardsWithAgents()) {
      const document = this.loaded(boardId);
      if (!document) continue;
      const clientIds = [...this.registry.shownAgents(boardId).keys()].map((agentId) => awarenessClientIdOf(agentId, document));
      removeAwarenessStates(document.awareness, clientIds, AGENT_ORIGIN);
    }
  }

  private renew(): void {
    for (const boardId of this.registry.boardsWithAgents()) {
      const document = this.loaded(boardId);
      if (!document) continue;
      for (const [agentId, agent] of this.registry.shownAgents(boardId)) applyAgentState(document, agentId, stateOf(agent));
    }
  }

  private stopRenewal(): void {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
  }

  /** The board's document, once loaded (a loading one gets the agents in `afterLoadDocument`). */
  private loaded(boardId: string): Document | undefined {
    const document = this.hocuspocus.documents.get(boardId);
    return document && !document.isLoading ? document : undefined;
  }
}

function stateOf({ view, presence }: ShownAgent): AgentAwarenessState {
  return {
    user: { id: view.user_id, name: presence.name, color: view.color, agent: true, persona: presence.persona, isThinking: presence.isThinking },
  };
}

/**
 * The awareness client id of an agent on a document: stable (derived from the agent id, as a
 * Yjs client id is a 32-bit number), and never the document's own.
 */
function awarenessClientIdOf(agentId: string, document: Document): number {
  let id = clientIds.get(agentId);
  if (id === undefined) {
    id = createHash('sha256').update(`agent:${agentId}`).digest().readUInt32BE(0);
    if (clientIds.size >= 10_000) clientIds.clear();
    clientIds.set(agentId, id);
  }
  return id === document.clientID ? (id + 1) >>> 0 : id;
}

/** Awareness client ids of agents, computed once each. */
const clientIds = new Map<string, number>();

function heldState(document: Document, agentId: string): unknown {
  return document.awareness.getStates().get(awarenessClientIdOf(agentId, document));
}

/**
 * Applies an agent's state to a document's awareness as a peer's update would arrive (the
 * y-protocols awareness update: count, then client id, clock, state as JSON), with the clock
 * one past the one the document holds for that client (a withdrawal raised it), since the
 * document ignores a state no newer than the one it knows.
 */
function applyAgentState(document: Document, agentId: string, state: AgentAwarenessState): void {
  const clientId = awarenessClientIdOf(agentId, document);
  const clock = (document.awareness.meta.get(clientId)?.clock ?? 0) + 1;
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint(encoder, clientId);
  encoding.writeVarUint(encoder, clock);
  encoding.writeVarString(encoder, JSON.stringify(state));
  applyAwarenessUpdate(document.awareness, encoding.toUint8Array(encoder), AGENT_ORIGIN);
}
