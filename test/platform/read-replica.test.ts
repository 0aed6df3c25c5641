/**
 * Operator reads from a read replica (issue 39 item 3): a throwaway primary
 * and its streaming replica (support/pg-cluster.ts, made once for this file),
 * a service process given the primary as DATABASE_URL and the replica as
 * DATABASE_REPLICA_URLS. With the replica's replay paused (a replica lagging
 * behind), a payment created through /v1 is read back by /v1 at once (the
 * primary) while the operator API's list, which the dashboard shows, does not
 * have it yet (the replica); once replay resumes the list shows it.
 * PostgreSQL only (PGlite has no replicas; without DATABASE_REPLICA_URLS every
 * read is the primary's, which the rest of the suite runs on).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/database';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { canMakeCluster, makePgCluster, type PgCluster } from '../support/pg-cluster';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

describe.skipIf(!onPostgres || !canMakeCluster)('read replicas: operator lists may lag, a payment read after its create never does (PostgreSQL only)', () => {
  let cluster: PgCluster;
  let service: ServiceProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-read-replica-'));

  beforeAll(async () => {
    cluster = await makePgCluster();
    service = await startServiceProcess({ DATA_DIR: dataDir, DATABASE_URL: cluster.primary.url, DATABASE_REPLICA_URLS: cluster.replica.url, SEED_DEMO: 'true' }, 90_000);
  }, 180_000);

  afterAll(async () => {
    // Replay resumed, so nothing waits on a paused standby while the service closes.
    await cluster?.replica.query('select pg_wal_replay_resume()').catch(() => {});
    await service?.stop();
    await cluster?.remove();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists from the lagging replica while /v1 reads its own create from the primary; the list catches up once replay resumes', async () => {
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const environmentId = (await call(service.url, 'GET', '/v1/auth/test', { key: service.apiKey })).body.environment.id as string;
    const listed = async (): Promise<string[]> => {
      const reply = await call(service.url, 'GET', `/internal/trpc/payments.list?input=${encodeURIComponent(JSON.stringify({ environmentId }))}`, { key: adminToken });
      expect(reply.status, reply.text).toBe(200);
      return (reply.body.result.data.items as { id: string }[]).map((item) => item.id);
    };

    // In step: a payment made before the pause is listed once the replica has it.
    const before = await call(service.url, 'POST', '/v1/payments', { key: service.apiKey, body: validPayment() });
    expect(before.status).toBe(201);
    await eventually(async () => (await listed()).includes(before.body.id), 10_000, 'the first payment listed');

    await cluster.replica.query('select pg_wal_replay_pause()');
    await eventually(async () => (await cluster.replica.query<{ state: string }>('select pg_get_wal_replay_pause_state() as state'))[0]!.state === 'paused', 10_000, 'replay paused');

    const created = await call(service.url, 'POST', '/v1/payments', { key: service.apiKey, body: validPayment() });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const read = await call(service.url, 'GET', `/v1/payments/${id}`, { key: service.apiKey });
    expect(read.status, 'a payment read after its own create comes from the primary').toBe(200);
    expect(read.body.id).toBe(id);
    const byExternalId = await call(service.url, 'GET', `/v1/payments?externalId=${encodeURIComponent(created.body.externalId)}`, { key: service.apiKey });
    expect(byExternalId.status).toBe(200);
    // The primary has it; the operator list, read from the paused replica, does not yet.
    expect((await cluster.primary.query('select 1 from payments where id = $1', [id])).length).toBe(1);
    const whileLagging = await listed();
    expect(whileLagging).toContain(before.body.id);
    expect(whileLagging).not.toContain(id);

    await cluster.replica.query('select pg_wal_replay_resume()');
    await eventually(async () => (await listed()).includes(id), 10_000, 'the list to show the payment once replay resumed');
  }, 60_000);
});
