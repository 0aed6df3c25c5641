/**
 * Resolves `Authorization: Bearer <key>` to the key and its
 * tenancy. Every failure is the same 401 `unauthorized`; only the message says
 * which check failed, and never echoes the key.
 *
 * A node keeps what it read for a key (the key, its environment, project and
 * organization) in memory, tagged with the tenancy epoch it read first. Every
 * operator change (a revocation, new limits, billing) bumps the epoch in the
 * store every node reads (Redis, or this process on the embedded single
 * node) before the operator gets the answer, so a request that starts after
 * that answer, on any node, reads the database again: revocation and billing
 * changes take effect everywhere at once. When Redis is configured but
 * unreachable nothing is cached. On PostgreSQL without REDIS_URL (a single
 * node, as the start-up warning says) the epoch is per node: a change is seen
 * at once by the node that made it, and within one second by any other.
 */
import { bearerCredential } from '../contract/bearer';
import { Refusal } from './refusal';
import { ApiKey, Environment, Organization, Project } from '../db/entities';
import type { EntityManager } from '../db/orm';
import type { Principal } from './principal';
import { hashApiKey, kindOfApiKey } from './api-keys';
import { raises } from './raises';

/** Exactly the bearer keyword, one space, and a token without whitespace. */
/** Writing last-used time on every request would turn reads into writes; once a minute per key and node is precise enough. */
const LAST_USED_PRECISION_MS = 60_000;
/** A cached key is read again at least this often even when no epoch changed (a backstop, not the revocation path). */
export const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

export const AUTHENTICATE = raises(['unauthorized']);

/** The version of everything operators can change about keys and their tenancy, shared by every node. */
export interface TenancyEpoch {
  /** The current epoch, or null when it cannot be known (then nothing may be served from a cache). */
  read(): Promise<string | null>;
  /** Called after every committed operator change, before its answer. */
  bump(): Promise<void>;
}

interface KeyRows {
  organization: { id: string; name: string; billingStatus: Organization['billingStatus']; monthlyTxLimit: number | null; createdAt: Date };
  project: { id: string; organization: string; name: string; createdAt: Date };
  environment: { id: string; project: string; kind: Environment['kind']; createdAt: Date };
  apiKey: Omit<ApiKey, 'environment' | 'name' | 'rateLimits' | 'lastUsedAt' | 'revokedAt'> & {
    environment: string;
    name: string | null;
    rateLimits: ApiKey['rateLimits'] | null;
    lastUsedAt: Date | null;
    revokedAt: Date | null;
  };
}

/** Per-node cache of key lookups, and the throttle of last-used writes. */
export class ApiKeyCache {
  private readonly entries = new Map<string, { epoch: string; loadedAt: number; rows: KeyRows }>();
  private readonly lastUsedWritten = new Map<string, number>();

  /**
   * `ttlMs`: how long an entry may serve requests without being read again.
   * With an epoch every node shares it is only a backstop; with a per-node
   * epoch (PostgreSQL without REDIS_URL) it is how late another node's
   * change can be seen here.
   */
  constructor(
    readonly epoch: TenancyEpoch,
    private readonly onBackgroundError: (error: unknown) => void = () => {},
    private readonly ttlMs: number = CACHE_TTL_MS,
  ) {}

  async lookup(em: EntityManager, keyHash: string, now: Date): Promise<KeyRows | null> {
    const epoch = await this.epoch.read();
    const cached = this.entries.get(keyHash);
    if (epoch !== null && cached && cached.epoch === epoch && now.getTime() - cached.loadedAt < this.ttlMs) return cached.rows;
    const rows = await readKey(em, keyHash);
    if (!rows) {
      this.entries.delete(keyHash);
      return null;
    }
    if (epoch !== null) {
      if (this.entries.size >= CACHE_MAX_ENTRIES) this.entries.clear();
      this.entries.set(keyHash, { epoch, loadedAt: now.getTime(), rows });
    }
    return rows;
  }

  /**
   * Last-used time, off the request path: the first use of a key is written
   * before the answer (so a listing right after shows it), later ones at most
   * once a minute per key and node, in the background.
   */
  async touch(em: EntityManager, rows: KeyRows, now: Date): Promise<void> {
    const key = rows.apiKey;
    const at = now.getTime();
    const written = Math.max(this.lastUsedWritten.get(key.id) ?? 0, key.lastUsedAt?.getTime() ?? 0);
    if (written && at - written <= LAST_USED_PRECISION_MS) return;
    if (this.lastUsedWritten.size >= CACHE_MAX_ENTRIES) this.lastUsedWritten.clear();
    this.lastUsedWritten.set(key.id, at);
    const write = em.fork().nativeUpdate(ApiKey, { id: key.id }, { lastUsedAt: now });
    if (!written) await write;
    else write.catch(this.onBackgroundError);
  }
}

async function readKey(em: EntityManager, keyHash: string): Promise<KeyRows | null> {
  const apiKey = await em.fork().findOne(ApiKey, { keyHash }, { populate: ['environment', 'environment.project', 'environment.project.organization'] });
  if (!apiKey) return null;
  const environment = apiKey.environment;
  const project = environment.project;
  const organization = project.organization;
  return {
    organization: {
      id: organization.id,
      name: organization.name,
      billingStatus: organization.billingStatus,
      monthlyTxLimit: organization.monthlyTxLimit ?? null,
      createdAt: organization.createdAt,
    },
    project: { id: project.id, organization: organization.id, name: project.name, createdAt: project.createdAt },
    environment: { id: environment.id, project: project.id, kind: environment.kind, createdAt: environment.createdAt },
    apiKey: {
      id: apiKey.id,
      environment: environment.id,
      name: apiKey.name ?? null,
      keyHash: apiKey.keyHash,
      displayPrefix: apiKey.displayPrefix,
      rateLimits: apiKey.rateLimits ?? null,
      createdAt: apiKey.createdAt,
      lastUsedAt: apiKey.lastUsedAt ?? null,
      revokedAt: apiKey.revokedAt ?? null,
    },
  };
}

export async function authenticate(em: EntityManager, header: string | undefined, now: Date, cache: ApiKeyCache): Promise<Principal> {
  if (!header) throw new Refusal('unauthorized', {}, 'Missing Authorization header; send "Authorization: Bearer <API key>".');
  const secret = bearerCredential(header);
  if (!secret) throw new Refusal('unauthorized', {}, 'Malformed Authorization header; expected "Bearer <API key>" with a single space.');
  const kind = kindOfApiKey(secret);
  if (!kind) throw new Refusal('unauthorized', {}, 'Malformed API key; keys start with sk_test_ or sk_live_.');

  const rows = await cache.lookup(em, hashApiKey(secret), now);
  if (!rows || rows.environment.kind !== kind) throw new Refusal('unauthorized', {}, 'Unknown API key.');
  if (rows.apiKey.revokedAt) throw new Refusal('unauthorized', {}, 'This API key has been revoked.');
  await cache.touch(em, rows, now);

  return principalOf(em, rows);
}

/**
 * The request's own unit of work gets managed copies (no query) when a use
 * case first asks for them, so what it creates can reference them; each is
 * merged after the one it points to, as the key's rows were read.
 */
function principalOf(em: EntityManager, rows: KeyRows): Principal {
  let organization: Organization | undefined;
  let project: Project | undefined;
  let environment: Environment | undefined;
  let apiKey: ApiKey | undefined;
  return {
    environmentId: rows.environment.id,
    apiKeyId: rows.apiKey.id,
    rateLimits: rows.apiKey.rateLimits,
    get organization() {
      return (organization ??= em.merge(Organization, rows.organization, { validate: false }));
    },
    get project() {
      if (!project) {
        void this.organization;
        project = em.merge(Project, rows.project, { validate: false });
      }
      return project;
    },
    get environment() {
      if (!environment) {
        void this.project;
        environment = em.merge(Environment, rows.environment, { validate: false });
      }
      return environment;
    },
    get apiKey() {
      if (!apiKey) {
        void this.environment;
        apiKey = em.merge(ApiKey, rows.apiKey, { validate: false });
      }
      return apiKey;
    },
  };
}
