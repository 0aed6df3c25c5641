/**
 * The registration machine without the service: a real, migrated test
 * database (PGlite, or PostgreSQL with TEST_DATABASE_URL) opened through the
 * ORM as the service opens it, one environment in it, and the collaborators
 * the machine asks for (secrets, clock, breaker, the outbox's nudge). The
 * gateway is an in-process adapter whose answers each test sets, so a test
 * can hold a call open, fail it, or count it.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { loadConfig } from '../../server/config';
import { openDatabase, type Database } from '../../server/db/orm';
import { Environment, Organization, Project } from '../../server/db/entities';
import { ENTITIES } from '../../server/domain/entities';
import type { RequestContext } from '../../server/domain/request-context';
import type { GatewayDirectory, Route } from '../../server/domain/routing/directory';
import { GatewayHealth } from '../../server/domain/routing/health';
import { SecretBox } from '../../server/domain/secret-box';
import type { GatewayAdapter } from '../../server/gateways';
import { createMemoryHealthStore } from '../../server/runtime/gateway-health-stores';
import type { Services } from '../../server/services';
import { createTestDatabase, withMigratedTemplate, type TestDatabase } from './database';

/** What the fake gateway does with one call: answer it, or throw; it may wait first. */
export type GatewayCall = (request: unknown) => Promise<unknown>;

export interface Machine {
  services: Services;
  db: Database;
  /** A request context in the machine's one environment. */
  context(): RequestContext;
  environmentId: string;
  organizationId: string;
  /** The route every registration and take-over reaches: gateway_a, through the fake adapter. */
  route: Route;
  /** Sets what the fake adapter's createPayment and createRefund do from now on; the requests they were called with are kept. */
  gateway: { answer(call: GatewayCall): void; requests: unknown[] };
  close(): Promise<void>;
}

export async function openMachine(): Promise<Machine> {
  const database: TestDatabase = await createTestDatabase({ migrated: true });
  const open = () => openDatabase(database.config, ENTITIES);
  const db = await (database.config.kind === 'pglite' ? withMigratedTemplate(open) : open());
  const config = { ...loadConfig({ NODE_ENV: 'test', PORT: '0', SEED_DEMO: 'false', GATEWAY_TIMEOUT_MS: '2000' }), database: database.config };

  const em = db.fork();
  const organization = em.create(Organization, { name: 'Registration machine' });
  const project = em.create(Project, { organization, name: 'Machine' });
  const environment = em.create(Environment, { project, kind: 'sandbox' });
  await em.flush();

  const requests: unknown[] = [];
  let current: GatewayCall = async () => {
    throw new Error('no gateway answer set');
  };
  const called = (request: unknown) => {
    requests.push(request);
    return current(request);
  };
  const adapter = { name: 'gateway_a', createPayment: called, createRefund: called, capabilities: { refunds: 'partial', paymentCancel: true } } as unknown as GatewayAdapter;
  const route: Route = { gateway: 'gateway_a', accountId: 'gwa_machine', adapter };
  const health = new GatewayHealth(config.routingBreaker, config.gatewayTimeouts.totalMs + 1_000, createMemoryHealthStore());
  // Only what the machine asks of the directory: the breaker, and the route of the gateway a row names.
  const gateways = { health, forExisting: async () => route } as unknown as GatewayDirectory;

  const services = {
    config,
    log: pino({ level: 'silent' }),
    db,
    gateways,
    secrets: new SecretBox(randomBytes(32)),
    outbox: { notify: () => {} },
    now: () => new Date(),
  } as unknown as Services;
  const principal = { environment, project, organization } as unknown as RequestContext['principal'];

  return {
    services,
    db,
    context: () => ({ em: db.fork(), services, principal }),
    environmentId: environment.id,
    organizationId: organization.id,
    route,
    gateway: {
      answer: (call) => {
        current = call;
      },
      requests,
    },
    async close() {
      await db.close();
      await database.drop();
    },
  };
}

/** A call that stays open until `release` is called, then answers as `then` does; `started` resolves once the gateway was called. */
export function heldCall(then: GatewayCall): { call: GatewayCall; started: Promise<void>; release(): void } {
  let release!: () => void;
  let started!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const begun = new Promise<void>((resolve) => (started = resolve));
  return {
    call: async (request) => {
      started();
      await released;
      return then(request);
    },
    started: begun,
    release,
  };
}
