/** The operator contract (docs/operating.md): every environment variable the service reads. */
export interface AppConfig {
  /** @default 3000 */
  port: number;
  /** @default '0.0.0.0' */
  host: string;
  /** `file:` = embedded SQLite, `postgresql://` = PostgreSQL. @default 'file:./data/whiteboard.db' */
  databaseUrl: string;
  /** Enables multi-instance mode when set. */
  redisUrl?: string;
  /**
   * Prefix of the Redis keys and channels the instances of one deployment share (document
   * fan-out, instance signals); deployments sharing a Redis each need their own. @default 'wb:'
   */
  clusterKeyPrefix: string;
  /** Base of access links and component files. @default `http://localhost:<listening port>` */
  appUrl?: string;
  /** Origin that serves component files (a separate, cookie-less origin in production). @default the app URL */
  componentsUrl?: string;
  /** Ensures an organization with this API key exists at start. */
  bootstrapApiKey?: string;
  /** @default 'professional' */
  bootstrapPlan: string;
  /** Enables the admin API; without it the admin API answers 404. */
  adminToken?: string;
  /** Signs user access tokens (HS256); unset = a random key generated and kept in the database. */
  jwtSecret?: string;
  nodeEnv: string;
  /** @default 'info' ('silent' under test) */
  logLevel: string;
  /** How often expired boards are swept, independent of reads. @default 30000 */
  expirySweepIntervalMs: number;
  /** Allow webhook URLs on loopback/private ranges and plain http. @default true unless NODE_ENV=production */
  webhookAllowPrivate: boolean;
  /**
   * SQLite's `synchronous` (`SQLITE_SYNCHRONOUS`): `normal` survives a killed process, `full` also
   * a power loss, at a disk flush per commit. @default 'normal'
   */
  sqliteSynchronous: SqliteSynchronous;
  /** Delays before each webhook retry. @default [1000, 5000, 25000] */
  webhookRetryDelaysMs: number[];
  /** Where 402/403 quota answers send clients to raise their plan. @default `${APP_URL}/upgrade` */
  upgradeUrl?: string;
  /** API rate limits per key. */
  rateLimits: RateLimitConfig;
  /** OpenAI-compatible chat completions for agents' content actions; unset = the built-in rule engine. */
  llm?: { baseUrl: string; apiKey: string; model: string; timeoutMs: number };
  /** How often the agent runtime looks at the clock (idle, timer ticks, schedules). @default 5000 */
  agentTickMs: number;
  /**
   * Guards `GET /metrics`: when set, a scrape must send `Authorization: Bearer <token>`. Unset, the
   * metrics are served to anyone who reaches the port: keep them off the public network then.
   */
  metricsToken?: string;
}

/** Requests allowed per API key; 0 turns that limit off. */
export interface RateLimitConfig {
  /** @default 100 */
  perMinute: number;
  /** Standard plans (starter, professional). @default 1000 */
  perHour: number;
  /** Premium plans (business, enterprise). @default 10000 */
  perHourPremium: number;
  /** Prefix of the counters' Redis keys. @default 'wb:rl:' */
  keyPrefix: string;
}

function retryDelays(value: string | undefined): number[] {
  if (!value) return [1_000, 5_000, 25_000];
  const delays = value.split(',').map((part) => Number(part.trim()));
  if (delays.some((delay) => !Number.isInteger(delay) || delay < 0)) {
    throw new Error(`WEBHOOK_RETRY_DELAYS_MS must be comma-separated non-negative integers, got "${value}"`);
  }
  return delays;
}

/** HS256 needs a key at least as long as its 256-bit output to keep its strength. */
function jwtSecret(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.length < 32) throw new Error('JWT_SECRET must be at least 32 characters long');
  return value;
}

/** How much SQLite waits for the disk at each commit. */
export type SqliteSynchronous = 'normal' | 'full';

function sqliteSynchronous(value: string | undefined): SqliteSynchronous {
  const chosen = (value || 'normal').toLowerCase();
  if (chosen !== 'normal' && chosen !== 'full') throw new Error(`SQLITE_SYNCHRONOUS must be "normal" or "full", got "${value}"`);
  return chosen;
}

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return parsed;
}

/** `LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL` (docs/operating.md): all three, or none. */
function llmSettings(env: NodeJS.ProcessEnv): AppConfig['llm'] {
  const { LLM_BASE_URL: baseUrl, LLM_API_KEY: apiKey = '', LLM_MODEL: model } = env;
  if (!baseUrl && !model) return undefined;
  if (!baseUrl || !model) throw new Error('LLM_BASE_URL and LLM_MODEL must be set together (LLM_API_KEY too, unless the endpoint needs none)');
  if (!/^https?:\/\//.test(baseUrl)) throw new Error(`LLM_BASE_URL must be an http(s) URL, got "${baseUrl}"`);
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey, model, timeoutMs: integer(env.LLM_TIMEOUT_MS, 20_000, 'LLM_TIMEOUT_MS') };
}

/** Reads the configuration from the environment, failing fast on nonsense. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const port = integer(env.PORT, 3000, 'PORT');
  const databaseUrl = env.DATABASE_URL || 'file:./data/whiteboard.db';
  if (!/^(file:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new Error('DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL)');
  }
  return {
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    redisUrl: env.REDIS_URL || undefined,
    clusterKeyPrefix: env.CLUSTER_KEY_PREFIX || 'wb:',
    appUrl: env.APP_URL ? env.APP_URL.replace(/\/+$/, '') : undefined,
    componentsUrl: env.COMPONENTS_URL ? env.COMPONENTS_URL.replace(/\/+$/, '') : undefined,
    bootstrapApiKey: env.BOOTSTRAP_API_KEY || undefined,
    bootstrapPlan: env.BOOTSTRAP_PLAN || 'professional',
    adminToken: env.ADMIN_TOKEN || undefined,
    jwtSecret: jwtSecret(env.JWT_SECRET),
    nodeEnv: env.NODE_ENV || 'development',
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    expirySweepIntervalMs: integer(env.EXPIRY_SWEEP_INTERVAL_MS, 30_000, 'EXPIRY_SWEEP_INTERVAL_MS'),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE ? env.WEBHOOK_ALLOW_PRIVATE === 'true' : env.NODE_ENV !== 'production',
    sqliteSynchronous: sqliteSynchronous(env.SQLITE_SYNCHRONOUS),
    webhookRetryDelaysMs: retryDelays(env.WEBHOOK_RETRY_DELAYS_MS),
    upgradeUrl: env.UPGRADE_URL || undefined,
    llm: llmSettings(env),
    agentTickMs: integer(env.AGENT_TICK_MS, 5_000, 'AGENT_TICK_MS') || 5_000,
    metricsToken: env.METRICS_TOKEN || undefined,
    rateLimits: {
      perMinute: integer(env.RATE_LIMIT_PER_MINUTE, 100, 'RATE_LIMIT_PER_MINUTE'),
      perHour: integer(env.RATE_LIMIT_PER_HOUR, 1_000, 'RATE_LIMIT_PER_HOUR'),
      perHourPremium: integer(env.RATE_LIMIT_PER_HOUR_PREMIUM, 10_000, 'RATE_LIMIT_PER_HOUR_PREMIUM'),
      keyPrefix: env.RATE_LIMIT_KEY_PREFIX || 'wb:rl:',
    },
  };
}
