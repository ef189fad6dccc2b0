import { Router } from 'express';
import type { AgentService } from '../agents/api/agentService.js';
import type { BoardAccess } from '../boards/boardAccess.js';
import type { BoardService } from '../boards/boardService.js';
import type { ObjectService } from '../objects/objectService.js';
import type { ParticipantLinks } from '../boards/participantLinks.js';
import type { SessionParticipants } from '../boards/sessionParticipants.js';
import type { FrameService } from '../frames/frameService.js';
import type { ObjectTypeService } from '../objectTypes/objectTypeService.js';
import type { OrganizationService } from '../organizations/organizationService.js';
import type { QuotaService } from '../quotas/quotaService.js';
import type { ApiRateLimits } from '../rateLimits/apiRateLimits.js';
import type { LiveDocuments } from '../boards/ports.js';
import type { Users } from '../users/users.js';
import type { SubscriptionService } from '../webhooks/subscriptionService.js';
import type { ComponentService } from '../components/componentService.js';
import { ApiKeyAuthenticator, requireOrganizationCredential } from './auth.js';
import { componentFilesRouter } from './componentFilesRoute.js';
import type { ComponentActions } from '../components/componentActions.js';
import type { ComponentStorage } from '../components/componentStorage.js';
import { componentObjectRoutes } from './routes/componentObjectRoutes.js';
import type { ComponentDataService } from '../components/dataProvider.js';
import { componentDataRoutes } from './routes/componentDataRoutes.js';
import { authenticateBoardCaller } from './boardCaller.js';
import { meterApiCalls } from './policies/apiCallMeter.js';
import { rateLimitPolicy } from './policies/rateLimitPolicy.js';
import { boardScope } from './routeSteps.js';
import { adminRoutes } from './routes/adminRoutes.js';
import { agentPresetRoutes, agentRoutes } from './routes/agentRoutes.js';
import { authRoutes } from './routes/authRoutes.js';
import { mcpRoutes } from './routes/mcpRoutes.js';
import { boardRoutes } from './routes/boardRoutes.js';
import { boardComponentRoutes, componentRoutes } from './routes/componentRoutes.js';
import { frameRoutes } from './routes/frameRoutes.js';
import { objectTypeRoutes } from './routes/objectTypeRoutes.js';
import { organizationRoutes } from './routes/organizationRoutes.js';
import { participantLinksRoutes } from './routes/participantLinksRoutes.js';
import { quotaRoutes } from './routes/quotaRoutes.js';
import { webhookRoutes } from './routes/webhookRoutes.js';

/** The domain services the REST API calls. */
export interface ApiServices {
  /** ADMIN_TOKEN; unset = no admin API. */
  adminToken: string | undefined;
  organizations: OrganizationService;
  access: BoardAccess;
  boards: BoardService;
  objects: ObjectService;
  documents: LiveDocuments;
  frames: FrameService;
  links: ParticipantLinks;
  sessions: SessionParticipants;
  subscriptions: SubscriptionService;
  objectTypes: ObjectTypeService;
  users: Users;
  agents: AgentService;
  quotas: QuotaService;
  rateLimits: ApiRateLimits;
  components: ComponentService;
  /** Component objects' storage and custom actions. */
  componentStorage: ComponentStorage;
  componentActions: ComponentActions;
  /** Components' data requests: a sandbox board's mock data or its data provider's answer. */
  componentData: ComponentDataService;
  /** The app's origin: the only one allowed to frame component files. */
  appOrigin: () => string;
}

/**
 * The REST API, mounted at /api/v1: every route with its credential. Every API-key call
 * passes the rate limits, then the API-call meter.
 */
export function apiRouter(services: ApiServices): Router {
  const { organizations, boards, frames, quotas } = services;
  const apiKeys = new ApiKeyAuthenticator(organizations, [rateLimitPolicy(services.rateLimits), meterApiCalls(quotas)]);
  const requireApiKey = apiKeys.required();
  // Board-scoped routes: the credential, then the board's access checks (routeSteps.ts).
  const board = boardScope(authenticateBoardCaller(apiKeys, services.access), boards);
  const requireKeyOrUserToken = requireOrganizationCredential(apiKeys, services.users.tokens);

  const api = Router();
  api.use('/admin', adminRoutes(organizations, services.users.accounts, services.adminToken));
  api.use(
    '/boards',
    boardRoutes(boards, services.objects, services.documents, frames, { organization: requireApiKey, board }),
    frameRoutes(frames, board),
    participantLinksRoutes(services.links, services.sessions, board),
    agentRoutes(services.agents, board),
    mcpRoutes(services.agents, board),
    componentObjectRoutes(services.componentStorage, services.componentActions, board),
    componentDataRoutes(services.componentData, board),
    boardComponentRoutes(services.components, boards, board.credential),
  );
  api.use('/agent-presets', requireApiKey, agentPresetRoutes(services.agents));
  api.use('/webhooks', requireApiKey, webhookRoutes(services.subscriptions));
  api.use('/object-types', requireApiKey, objectTypeRoutes(services.objectTypes));
  // Component files are public (`GET /components/files/…` takes no credential), here and at the app's root.
  api.use(componentFilesRouter(services.components, services.appOrigin));
  api.use('/components', componentRoutes(services.components, apiKeys));
  api.use('/auth', authRoutes(services.users.auth));
  api.use('/organizations', organizationRoutes(organizations, requireKeyOrUserToken));
  api.use('/quota', quotaRoutes(quotas, requireKeyOrUserToken));
  return api;
}
