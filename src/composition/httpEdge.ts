import type { RequestListener, Server } from 'node:http';
import { Router } from 'express';
import type { Clock } from '../clock.js';
import { ComponentActions } from '../components/componentActions.js';
import { ComponentStorage } from '../components/componentStorage.js';
import { ComponentDataService } from '../components/dataProvider.js';
import type { AppConfig } from '../config.js';
import { apiRouter } from '../http/apiRouter.js';
import { boardPageRouter } from '../http/boardPage.js';
import { componentFilesRouter } from '../http/componentFilesRoute.js';
import { createHttpApp } from '../http/httpApp.js';
import { answerProbesFirst, type ProbeChecks } from '../http/probes.js';
import type { Logger } from '../logger.js';
import type { Observability } from '../observability/observability.js';
import { ApiRateLimits } from '../rateLimits/apiRateLimits.js';
import type { InstanceMode } from '../realtime/instanceMode.js';
import type { Realtime } from '../realtime/realtime.js';
import type { Database } from '../store/database.js';
import type { BoardDomains } from './boardDomains.js';
import type { CoreDomains } from './coreDomains.js';

export interface HttpParts {
  config: AppConfig;
  database: Database;
  instance: InstanceMode;
  core: CoreDomains;
  domains: BoardDomains;
  realtime: Realtime;
  observability: Observability;
  appUrl: () => string;
  /** Limits of board data provider calls (AppOptions.dataProvider). */
  dataProvider?: { timeoutMs?: number; maxInFlightPerBoard?: number };
  clock: Clock;
  logger: Logger;
}

/** The HTTP side of the service: what answers each request, and the switch that starts draining. */
export interface HttpEdge {
  /** Metrics first, then the probes, then the Express app (REST API and pages). */
  requests: RequestListener;
  /** From here `/ready` answers 503 and requests are turned away (http/probes.ts). */
  drain(): void;
}

export function buildHttpEdge(parts: HttpParts): HttpEdge {
  const { config, appUrl, clock, logger, observability } = parts;
  const app = createHttpApp({
    logger,
    now: () => clock.now(),
    api: buildApi(parts),
    pages: Router().use(
      boardPageRouter({ componentsOrigin: () => new URL(config.componentsUrl ?? appUrl()).origin }),
      componentFilesRouter(parts.core.components, () => new URL(appUrl()).origin),
    ),
  });
  let draining = false;
  const probeChecks: ProbeChecks = {
    dependencies: {
      database: async () => {
        await parts.database.prisma.$queryRawUnsafe('SELECT 1');
      },
      ...parts.instance.dependencies,
    },
    draining: () => draining,
    now: () => clock.now(),
  };
  return {
    requests: observability.answerMetricsFirst(answerProbesFirst(probeChecks, logger, observability.observeHttp(app))),
    drain: () => {
      draining = true;
    },
  };
}

function buildApi({ config, database, core, domains, realtime, appUrl, dataProvider, clock, logger }: HttpParts): Router {
  const db = database.prisma;
  const { boards, objects } = domains;
  const { components } = core;
  return apiRouter({
    adminToken: config.adminToken,
    organizations: core.organizations,
    access: core.access,
    boards,
    objects,
    documents: realtime.documents,
    frames: domains.frames,
    links: domains.links,
    sessions: core.sessions,
    subscriptions: domains.webhooks.subscriptions,
    objectTypes: core.objectTypes,
    users: domains.users,
    agents: domains.agents.service,
    quotas: core.quotas,
    rateLimits: new ApiRateLimits({ config: config.rateLimits, limiters: domains.limiters, clock }),
    components,
    componentStorage: new ComponentStorage({ objects, manifests: components.manifests, documents: realtime.documents, frames: core.frameDirectory, db, clock }),
    componentActions: new ComponentActions({ objects, manifests: components.manifests, db, bus: core.bus, clock }),
    componentData: new ComponentDataService({ boards, clock, logger, allowPrivate: config.webhookAllowPrivate, ...dataProvider }),
    appOrigin: () => new URL(appUrl()).origin,
  });
}

/**
 * The service's public address: APP_URL, or where none, this server's port on localhost once
 * it listens (PORT=0 picks the port); empty before then.
 */
export function publicUrl(config: AppConfig, server: Server): () => string {
  return () => config.appUrl ?? listeningUrl(server);
}

function listeningUrl(server: Server): string {
  const address = server.address();
  return address !== null && typeof address === 'object' ? `http://localhost:${address.port}` : '';
}

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
