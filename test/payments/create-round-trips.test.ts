/**
 * A new create is a fixed, short conversation with PostgreSQL: the service
 * talks to the database through a relay that counts round trips (one wait
 * for the server each), so a change that adds a query to the create path
 * fails here with the statements it sent. PostgreSQL only: the embedded
 * database has no wire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { onPostgres } from '../support/database';
import { startSandbox, type Sandbox } from '../support/gateways';
import { startServiceBehindWire, type WireCounter } from '../support/postgres-wire';
import type { TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

/** The create's statements: the externalId's read, the quota's admission (when there is a quota), the insert with the lease, the registration. */
const WITHOUT_QUOTA = 3;
const WITH_QUOTA = 4;

describe.skipIf(!onPostgres)('round trips to PostgreSQL', () => {
  let behindWire: Awaited<ReturnType<typeof startServiceBehindWire>>;
  let wire: WireCounter;
  let service: TestService;
  let tenant: TestTenant;
  let sandbox: Sandbox;

  beforeAll(async () => {
    // No webhook dispatcher: its passes (fanning out the creates' events on its own connection) would land among the counted trips.
    behindWire = await startServiceBehindWire({ WEBHOOK_DISPATCHER: 'false' });
    ({ service, wire } = behindWire);
    tenant = await createTenant(service);
    sandbox = await startSandbox(service, tenant.environmentId, { PIX: 'gateway_a' });
  });
  afterAll(async () => {
    await sandbox?.close();
    await behindWire?.stop();
  });

  const create = (externalId: string) => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment({ method: 'PIX', externalId }) });

  /** Round trips of one create, once the key and the route are cached by a first create. */
  async function roundTripsOfNewCreate(): Promise<{ trips: number; statements: string[] }> {
    expect((await create(`warm-${Date.now()}`)).status).toBe(201);
    wire.reset();
    const created = await create(`counted-${Date.now()}`);
    expect(created.status).toBe(201);
    return { trips: wire.roundTrips(), statements: wire.statements() };
  }

  it(`a new create of an organization without a quota makes ${WITHOUT_QUOTA}`, async () => {
    const { trips, statements } = await roundTripsOfNewCreate();
    expect(trips, statements.join('\n')).toBe(WITHOUT_QUOTA);
  });

  it(`a new create of an organization with a monthly quota makes ${WITH_QUOTA}`, async () => {
    await service.admin.organizations.setBilling({ organizationId: tenant.organizationId, monthlyTxLimit: 1_000 });
    const { trips, statements } = await roundTripsOfNewCreate();
    expect(trips, statements.join('\n')).toBe(WITH_QUOTA);
  });
});
