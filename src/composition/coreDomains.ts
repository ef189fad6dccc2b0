import { AccessTokens } from '../boards/accessTokens.js';
import { BoardAccess } from '../boards/boardAccess.js';
import { ParticipantHistory } from '../boards/participantHistory.js';
import { SessionParticipants } from '../boards/sessionParticipants.js';
import type { Clock } from '../clock.js';
import { ComponentObjectRules } from '../components/componentObjects.js';
import { ComponentService } from '../components/componentService.js';
import type { AppConfig } from '../config.js';
import { EventBus } from '../events/bus.js';
import type { CacheSignal } from '../events/cacheSignals.js';
import { FrameDirectory } from '../frames/frameDirectory.js';
import type { Logger } from '../logger.js';
import { ObjectTypeService } from '../objectTypes/objectTypeService.js';
import { OrganizationService } from '../organizations/organizationService.js';
import type { Plan } from '../organizations/plans.js';
import { OrganizationQueue, PlanRead, RowLock } from '../quotas/organizationSerializer.js';
import { QuotaService } from '../quotas/quotaService.js';
import { SocketMessageMeter } from '../quotas/socketMessageMeter.js';
import { UsageGauges } from '../quotas/usageGauges.js';
import { UsageStore } from '../quotas/usageStore.js';
import type { InstanceMode } from '../realtime/instanceMode.js';
import type { Database } from '../store/database.js';
import type { InstanceChannel } from '../store/instanceChannels.js';
import { serverSecret } from '../store/secrets.js';

/** What the core domains are built from. `appUrl` answers the public address once the server listens. */
export interface CoreParts {
  config: AppConfig;
  database: Database;
  instance: InstanceMode;
  caches: InstanceChannel<CacheSignal>;
  appUrl: () => string;
  clock: Clock;
  logger: Logger;
}

export type CoreDomains = Awaited<ReturnType<typeof buildCoreDomains>>;

/**
 * The domains the realtime engine checks its sockets against: organizations and their plans,
 * quotas, board access, sessions, frames, components and object types.
 */
export async function buildCoreDomains(parts: CoreParts) {
  const { config, database, instance, caches, appUrl, clock, logger } = parts;
  const db = database.prisma;
  const bus = new EventBus(clock, logger);
  const organizations = new OrganizationService({ db, clock });
  const tokens = new AccessTokens(await serverSecret(db, 'board-token-key', clock.now()));
  const quotas = new QuotaService({
    db,
    serializer: new OrganizationQueue(database.flavour === 'postgres' ? new RowLock(db) : new PlanRead(db, (id) => organizations.planOf(id))),
    clock,
    usage: new UsageStore(db, database.statements),
    // People online are those holding a seat in the realtime seat ledger, through any instance.
    gauges: new UsageGauges(db, database.statements, { count: (boardId: string) => instance.seats.count(boardId), boards: () => instance.seats.boards() }),
    upgradeUrl: () => config.upgradeUrl ?? `${appUrl()}/upgrade`,
  });
  const socketMessages = new SocketMessageMeter(quotas, logger);
  const access = new BoardAccess({ db, clock, tokens, quotas });
  organizations.onChanged((organizationId) => {
    access.planChanged(organizationId);
    caches.publish({ kind: 'organization', organizationId });
  });
  await access.backfillLookupHashes();
  const frameDirectory = new FrameDirectory(db);
  const components = new ComponentService({ db, clock, quotas, componentsUrl: () => config.componentsUrl ?? appUrl(), appUrl });
  const objectTypes = new ObjectTypeService({ db, clock, logger, quotas, components: new ComponentObjectRules(components.manifests, () => config.webhookAllowPrivate) });
  const history = new ParticipantHistory(db);
  const sessions = new SessionParticipants({ db, clock, tokens, history, appUrl });
  return { bus, organizations, tokens, quotas, socketMessages, access, frameDirectory, components, objectTypes, history, sessions };
}

/**
 * BOOTSTRAP_API_KEY's organization, or else the development organization: its new API key
 * when this start had to create it, shown once.
 */
export async function ensureBootstrapOrganization(organizations: OrganizationService, bootstrap: { apiKey?: string; plan: Plan }): Promise<string | null> {
  if (bootstrap.apiKey) {
    await organizations.ensureBootstrapKey(bootstrap.apiKey, bootstrap.plan);
    return null;
  }
  return organizations.ensureDevelopmentOrganization(bootstrap.plan);
}
