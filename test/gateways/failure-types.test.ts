/**
 * What a failed gateway call is, as data (gateways/errors.ts): its kind, how
 * the connection broke or which status the gateway answered, and whether
 * asking again may work; and what routing fallback makes of it
 * (routing/availability.ts). Against the three simulators over real
 * sockets, no service started.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_NAMES } from '../../server/contract/enums';
import type { Fault } from '../../server/contract/sandbox-controls';
import { unavailability, type Unavailability } from '../../server/domain/routing/availability';
import { GatewayFailure, type TransportFailure } from '../../server/gateways/errors';
import { createGatewayAdapter } from '../../server/gateways/index';
import type { GatewayAdapter } from '../../server/gateways/adapter';
import { CREDENTIALS, CUSTOMER, PATIENT_TIMEOUTS, startGateway, type GatewayUnderTest } from '../support/gateway-harness';

interface Expected {
  title: string;
  fault: Fault;
  transport?: TransportFailure;
  status?: number;
  /** What routing fallback reads: an outage moves a create to the next gateway, null answers it as it is. */
  outage: Unavailability | null;
}

const FAULTS: Expected[] = [
  { title: 'latency beyond the total timeout', fault: { kind: 'latency', ms: 1_500 }, transport: 'timeout', outage: 'timeout' },
  { title: 'hang (no answer at all)', fault: { kind: 'hang' }, transport: 'timeout', outage: 'timeout' },
  { title: 'created but the connection destroyed before the answer', fault: { kind: 'drop_response' }, transport: 'reset', outage: 'reset' },
  { title: '500', fault: { kind: 'server_error' }, status: 500, outage: 'server_error' },
  { title: '503', fault: { kind: 'server_error', status: 503 }, status: 503, outage: 'server_error' },
  { title: 'unexpected 4xx', fault: { kind: 'client_error', status: 409 }, status: 409, outage: null },
  { title: 'non-JSON body', fault: { kind: 'malformed' }, outage: null },
  { title: '502 with an HTML page (a proxy in front of the gateway)', fault: { kind: 'malformed', status: 502 }, status: 502, outage: 'server_error' },
  { title: '404 with an HTML page (a wrong base URL)', fault: { kind: 'malformed', status: 404 }, outage: null },
  { title: 'JSON of the wrong shape', fault: { kind: 'malformed', body: '{"id":42,"status":null}' }, outage: null },
];

/** The failure a call ended with; fails the test when it succeeded or failed with something else. */
async function failureOf(call: Promise<unknown>): Promise<GatewayFailure> {
  const reason = await call.then(
    () => null,
    (error: unknown) => error,
  );
  expect(reason).toBeInstanceOf(GatewayFailure);
  return reason as GatewayFailure;
}

/** A port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return port;
}

describe.each(GATEWAY_NAMES)('%s failures as data', (name) => {
  let gw: GatewayUnderTest;
  // Where the failure is not a timeout, an adapter whose timeouts a busy machine cannot reach, so the failure is the fault's.
  let patient: GatewayAdapter;
  let seq = 0;
  const cardPayment = () => ({ idempotencyKey: `failure-type-${name}-${++seq}`, amount: 1500, method: 'card' as const, installments: 2, customer: CUSTOMER });

  beforeAll(async () => {
    gw = await startGateway(name);
    patient = createGatewayAdapter(name, { baseUrl: gw.sim.url, credentials: CREDENTIALS[name], timeouts: PATIENT_TIMEOUTS });
  });
  afterAll(async () => {
    await patient?.close();
    await gw?.close();
  });

  it.each(FAULTS)('$title: unavailable, retryable, its transport or status, and the outage fallback reads', async ({ fault, transport, status, outage }) => {
    gw.sim.injectFault('createPayment', fault);
    const adapter = transport === 'timeout' ? gw.adapter : patient;
    const failure = await failureOf(adapter.createPayment(cardPayment()));
    expect(failure.kind).toBe('unavailable');
    expect(failure.retryable).toBe(true);
    expect(failure.transport).toBe(transport);
    expect(failure.status).toBe(status);
    expect(unavailability(failure)).toBe(outage);
  });

  it('a 422 refusal on a field we know: refused, not retryable, not an outage', async () => {
    gw.sim.injectFault('createPayment', { kind: 'validation' });
    const failure = await failureOf(patient.createPayment(cardPayment()));
    expect(failure.kind).toBe('refused');
    expect(failure.retryable).toBe(false);
    expect(failure.issues.length).toBeGreaterThan(0);
    expect(unavailability(failure)).toBeNull();
  });

  it('nothing listening at the address: refused_connection, so nothing exists there', async () => {
    const adapter = createGatewayAdapter(name, { baseUrl: `http://127.0.0.1:${await closedPort()}/`, credentials: CREDENTIALS[name], timeouts: PATIENT_TIMEOUTS });
    try {
      const failure = await failureOf(adapter.createPayment(cardPayment()));
      expect(failure.kind).toBe('unavailable');
      expect(failure.transport).toBe('refused_connection');
      expect(failure.status).toBeUndefined();
      expect(unavailability(failure)).toBe('refused_connection');
    } finally {
      await adapter.close();
    }
  });
});
