/**
 * Simulators for every sandbox environment of the embedded default and
 * development: each sandbox environment gets its own three simulators, its
 * gateway accounts point at them, and their webhooks come back to that
 * environment's accounts (a simulator, like a real gateway account, has one
 * set of credentials and one notification address). The demo environment is
 * wired at start like any other; an environment created while the service
 * runs is wired at its creation (operator/tenancy.ts).
 *
 * A gateway account a person configured with credentials of their own (not
 * minted here) is left alone: only accounts that are missing or that were
 * made for a simulator are pointed at one. The simulators' state lives in
 * memory; their ports change on every start, so start re-points the accounts.
 */
import { randomBytes } from 'node:crypto';
import { operatorContext } from '../operator/procedure';
import { operatorRouter } from '../operator/router';
import { GATEWAY_NAMES, type GatewayName, type RoutingMethod } from '../contract/enums';
import { Environment, GatewayAccount } from '../db/entities';
import type { SandboxSimulators } from '../domain/sandbox-seam';
import type { Services } from '../services';
import { inProcessSandbox } from './in-process';
import { gatewaySimulators } from './simulators';
import type { GatewaySimulator } from './simulator/control';

const token = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

/** The credential each gateway's simulator credentials are recognised by, and its prefix. */
const MINTED: Record<GatewayName, { field: string; prefix: string }> = {
  gateway_a: { field: 'secretKey', prefix: 'sk_sim_a_' },
  gateway_b: { field: 'apiKey', prefix: 'key_sim_b_' },
  gateway_c: { field: 'apiKey', prefix: 'ck_sim_c_' },
};

const NEW_CREDENTIALS: Record<GatewayName, () => Record<string, string>> = {
  gateway_a: () => ({ secretKey: token('sk_sim_a'), webhookSecret: token('whsec_a') }),
  gateway_b: () => ({ apiKey: token('key_sim_b'), webhookToken: token('token_b') }),
  gateway_c: () => ({ apiKey: token('ck_sim_c'), apiSecret: token('cs_sim_c'), webhookSecret: token('whsec_c') }),
};

/** Credentials minted for a simulator (never a real gateway's): those accounts may be re-pointed at this run's simulator. */
export function mintedForSimulator(gateway: GatewayName, credentials: Record<string, unknown>): boolean {
  const value = credentials[MINTED[gateway].field];
  return typeof value === 'string' && value.startsWith(MINTED[gateway].prefix);
}

/** Routing of a newly wired sandbox: Pix and cards to gateway_a, subscriptions to gateway_c (the one with plans and checkout links). */
export const SANDBOX_ROUTES: Record<RoutingMethod, GatewayName> = { PIX: 'gateway_a', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' };

type Simulators = Partial<Record<GatewayName, GatewaySimulator>>;

/**
 * Starts simulators for one environment's missing or simulator-made accounts
 * and points the accounts at them. Routing rules are set only for an
 * environment that had neither rules nor accounts (a new one): rules a person
 * removed are not brought back.
 */
async function wireSimulators(services: Services, environmentId: string, routes: Record<RoutingMethod, GatewayName>): Promise<Simulators> {
  const operator = operatorRouter.createCaller(operatorContext(services));
  const em = services.db.fork();
  const accounts = await em.find(GatewayAccount, { environment: environmentId });
  const existing = new Map(accounts.map((account) => [account.gateway, account]));
  const simulators: Simulators = {};
  try {
    for (const gateway of GATEWAY_NAMES) {
      const account = existing.get(gateway);
      const kept = account ? services.secrets.openJson<Record<string, string>>(account.credentialsSealed) : null;
      if (kept && !mintedForSimulator(gateway, kept)) continue; // the merchant's own gateway account
      const credentials = kept ?? NEW_CREDENTIALS[gateway]();
      const start = gatewaySimulators[gateway] as (options: { credentials: unknown }) => Promise<GatewaySimulator>;
      const simulator = await start({ credentials });
      simulators[gateway] = simulator;
      // Ports change on every start: the account is pointed at this run's simulator (its enabled switch is kept).
      const configured = await operator.gateways.configure({ environmentId, gateway, baseUrl: simulator.url, credentials });
      simulator.setWebhookUrl(configured.webhookUrl);
    }
    if (accounts.length === 0 && (await operator.routing.list({ environmentId })).length === 0) {
      for (const [method, gateway] of Object.entries(routes)) {
        if (simulators[gateway]) await operator.routing.set({ environmentId, method: method as RoutingMethod, gateway });
      }
    }
  } catch (error) {
    await Promise.all(Object.values(simulators).map((simulator) => simulator.close()));
    throw error;
  }
  return simulators;
}

/**
 * Every wired environment's simulators. As the service's sandbox seam
 * (`seam()`), what names no environment (the start banner, the operator's
 * faults and replays) acts on the primary one, the first wired: the demo
 * environment.
 */
export class SimulatorFleet {
  private readonly wired = new Map<string, SandboxSimulators>();
  /** Wirings under way, so two creations of the same environment's simulators never race. */
  private readonly pending = new Map<string, Promise<SandboxSimulators>>();
  private primaryId: string | null = null;
  private closed = false;

  constructor(private readonly services: Services) {}

  /** Wires an environment (once), with `routes` if it is new; the first wired is the primary. */
  async wire(environmentId: string, routes: Record<RoutingMethod, GatewayName> = SANDBOX_ROUTES): Promise<SandboxSimulators> {
    const done = this.wired.get(environmentId);
    if (done) return done;
    let wiring = this.pending.get(environmentId);
    if (!wiring) {
      wiring = wireSimulators(this.services, environmentId, routes).then(async (simulators) => {
        const sandbox = inProcessSandbox(simulators);
        if (this.closed) {
          await sandbox.close();
          throw new Error('the sandbox simulators are shut down');
        }
        this.wired.set(environmentId, sandbox);
        this.primaryId ??= environmentId;
        return sandbox;
      });
      this.pending.set(environmentId, wiring);
      void wiring.finally(() => this.pending.delete(environmentId)).catch(() => undefined);
    }
    return wiring;
  }

  /** Every sandbox environment not wired yet: those wired on an earlier start (simulator-made accounts) and those with no account. */
  async wireExisting(): Promise<void> {
    const environments = await this.services.db.fork().find(Environment, { kind: 'sandbox' }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    for (const environment of environments) {
      try {
        await this.wire(environment.id);
      } catch (error) {
        this.services.log.warn({ err: error, environmentId: environment.id }, 'sandbox environment not wired to simulators');
      }
    }
  }

  /** The service's seam: the primary environment's simulators, and every environment's by id. */
  seam(): SandboxSimulators {
    const primary = this.primaryId ? this.wired.get(this.primaryId) : undefined;
    if (!primary) throw new Error('no sandbox environment is wired to simulators yet');
    return {
      ...primary,
      forEnvironment: (environmentId) => this.wired.get(environmentId) ?? null,
      wireEnvironment: async (environmentId) => {
        await this.wire(environmentId);
      },
      close: () => this.close(),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.pending.values()]);
    await Promise.all([...this.wired.values()].map((sandbox) => sandbox.close()));
    this.wired.clear();
  }
}
