/**
 * The control surface common to the three simulators: the same actions as
 * methods on the handle and as HTTP routes under `/_sim/` (documented in each
 * PROTOCOL.md), so tests, the dev server and curl drive outcomes alike.
 */
import { z } from 'zod';
import type { CardSummary } from '../../gateways/adapter';
import { faultSchema, REFUND_SETTLEMENTS, SIM_OPERATIONS, type Fault, type RefundSettlement, type SimOperation } from '../../contract/sandbox-controls';
import { SimControlError, startSimServer, type RunningSimServer, type SimProtocol, type SimRequest, type SimRoute } from './server';
import type { WebhookDelivery, WebhookDispatcher } from './webhooks';

/** Synchronous state changes a simulator implements; webhooks they cause are queued. */
export interface SimulatorActions {
  /**
   * Pix paid, or card approved through the hosted checkout; `paidAt` (default now) is when the gateway says the
   * money arrived (a Pix's settlement, a card's capture), as its objects then report it.
   */
  payPayment(ref: string, card?: CardSummary, paidAt?: Date): void;
  declinePayment(ref: string): void;
  expirePayment(ref: string): void;
  /** Forces any raw gateway status, known or not (status-table tests). */
  setPaymentStatus(ref: string, rawStatus: string): void;
  /**
   * The customer registered a card at the subscription's checkout; gateway_c turns `pl_` into `sub_`.
   * `racingDeactivation` (gateway_c): the card went through while the link was being deactivated, so the
   * subscription appears on a link already deactivated, as a real gateway can let happen.
   */
  completeCheckout(ref: string, options?: { racingDeactivation?: boolean }): { subscriptionRef: string };
  /**
   * gateway_c: the next deactivation of this subscription checkout link answers `deactivated` and, in the
   * same instant, the customer's card goes through: the `sub_` appears and `subscription.created` is sent.
   * Gateways without checkout links answer 409.
   */
  raceNextDeactivation(ref: string): void;
  /** The cycle ends: a recurring charge paid and the period moves on (paymentRef), or, when cancel-at-period-end was asked, the subscription ends (null). */
  renewSubscription(ref: string): { paymentRef: string | null };
  failSubscriptionCharge(ref: string): { paymentRef: string };
  markPastDue(ref: string): void;
  endTrial(ref: string): void;
  setSubscriptionStatus(ref: string, rawStatus: string): void;
  /** A pending refund settles: the money went back (by the gateway's refund id, or a Pix devolução's id or rtrId). */
  settleRefund(ref: string): void;
  /** A pending refund fails at the gateway (Pix: NAO_REALIZADO), with the gateway's reason. */
  failRefund(ref: string, reason?: string): void;
  /** Forces any raw refund status, known or not (status-table tests); notifies like a real change. */
  setRefundStatus(ref: string, rawStatus: string): void;
  /** Whether refunds asked for from now on wait for a control (`later`, the default) or settle in the refund call (`at-once`). */
  setRefundSettlement(mode: RefundSettlement): void;
}

export interface SimulatorStats {
  /** Resources created through the API; a deduplicated retry adds nothing. */
  created: { payments: number; subscriptions: number; subscriptionCharges: number; refunds: number };
  calls: Partial<Record<SimOperation, number>>;
}

type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;
};

/** What every start…Simulator returns. Actions resolve after their webhooks were attempted. */
export interface GatewaySimulator extends Async<SimulatorActions> {
  readonly url: string;
  injectFault(operation: SimOperation, fault: Fault, times?: number): void;
  clearFaults(): void;
  stats(): SimulatorStats;
  setWebhookUrl(url: string | null): void;
  /** Off: webhooks are recorded but never sent, as notifications a real gateway lost (replay still sends them). */
  setWebhooksEnabled(enabled: boolean): void;
  webhookLog(): readonly WebhookDelivery[];
  replayWebhooks(options?: { last?: number; reverse?: boolean }): Promise<WebhookDelivery[]>;
  /** Resolves once every webhook queued so far (also by API calls) has been attempted. */
  flushWebhooks(): Promise<void>;
  close(): Promise<void>;
}

export interface SimulatorOptions<Credentials> {
  /** 0 or absent: an ephemeral port. */
  port?: number;
  host?: string;
  credentials: Credentials;
  webhookUrl?: string;
}

const payBody = z.object({ card: z.object({ brand: z.string().min(1), last4: z.string().regex(/^\d{4}$/) }).optional(), paidAt: z.iso.datetime().optional() });
const statusBody = z.object({ status: z.string().min(1) });
const faultBody = z.object({ operation: z.enum(SIM_OPERATIONS), fault: faultSchema, times: z.number().int().min(1).optional() });
const enabledBody = z.object({ enabled: z.boolean() });
const replayBody = z.object({ last: z.number().int().min(0).optional(), reverse: z.boolean().optional() });
const urlBody = z.object({ url: z.url().nullable() });
const completeBody = z.object({ racingDeactivation: z.boolean().optional() });
const failRefundBody = z.object({ reason: z.string().min(1).max(140).optional() });
const settlementBody = z.object({ mode: z.enum(REFUND_SETTLEMENTS) });

function parse<T>(schema: z.ZodType<T>, req: SimRequest): T {
  const parsed = schema.safeParse(req.body ?? {});
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join('.') || issue.message);
    throw new SimControlError(400, `invalid control body: ${fields.join(', ')}`);
  }
  return parsed.data;
}

function ref(req: SimRequest): string {
  return req.params.ref ?? '';
}

export function controlRoutes(handle: () => GatewaySimulator): SimRoute[] {
  const ok = (body: unknown = { ok: true }) => ({ status: 200, body });
  const action = (pattern: string, run: (req: SimRequest) => Promise<unknown>): SimRoute => ({
    method: 'POST',
    pattern,
    public: true,
    handler: async (req) => ok((await run(req)) ?? { ok: true }),
  });
  return [
    action('/_sim/payments/:ref/pay', (req) => {
      const body = parse(payBody, req);
      return handle().payPayment(ref(req), body.card, body.paidAt ? new Date(body.paidAt) : undefined);
    }),
    action('/_sim/payments/:ref/decline', (req) => handle().declinePayment(ref(req))),
    action('/_sim/payments/:ref/expire', (req) => handle().expirePayment(ref(req))),
    action('/_sim/payments/:ref/status', (req) => handle().setPaymentStatus(ref(req), parse(statusBody, req).status)),
    action('/_sim/subscriptions/:ref/complete-checkout', (req) => handle().completeCheckout(ref(req), parse(completeBody, req))),
    action('/_sim/subscriptions/:ref/race-deactivation', (req) => handle().raceNextDeactivation(ref(req))),
    action('/_sim/subscriptions/:ref/renew', (req) => handle().renewSubscription(ref(req))),
    action('/_sim/subscriptions/:ref/charge-failure', (req) => handle().failSubscriptionCharge(ref(req))),
    action('/_sim/subscriptions/:ref/past-due', (req) => handle().markPastDue(ref(req))),
    action('/_sim/subscriptions/:ref/end-trial', (req) => handle().endTrial(ref(req))),
    action('/_sim/subscriptions/:ref/status', (req) => handle().setSubscriptionStatus(ref(req), parse(statusBody, req).status)),
    action('/_sim/refunds/:ref/settle', (req) => handle().settleRefund(ref(req))),
    action('/_sim/refunds/:ref/status', (req) => handle().setRefundStatus(ref(req), parse(statusBody, req).status)),
    action('/_sim/refunds/:ref/fail', (req) => handle().failRefund(ref(req), parse(failRefundBody, req).reason)),
    { method: 'PUT', pattern: '/_sim/refunds/settlement', public: true, handler: (req) => (handle().setRefundSettlement(parse(settlementBody, req).mode), ok()) },
    action('/_sim/faults', async (req) => {
      const { operation, fault, times } = parse(faultBody, req);
      handle().injectFault(operation, fault, times);
    }),
    { method: 'DELETE', pattern: '/_sim/faults', public: true, handler: () => (handle().clearFaults(), ok()) },
    { method: 'GET', pattern: '/_sim/stats', public: true, handler: () => ok(handle().stats()) },
    { method: 'GET', pattern: '/_sim/webhooks', public: true, handler: () => ok({ deliveries: handle().webhookLog() }) },
    { method: 'PUT', pattern: '/_sim/webhooks/url', public: true, handler: (req) => (handle().setWebhookUrl(parse(urlBody, req).url), ok()) },
    { method: 'PUT', pattern: '/_sim/webhooks/enabled', public: true, handler: (req) => (handle().setWebhooksEnabled(parse(enabledBody, req).enabled), ok()) },
    action('/_sim/webhooks/replay', async (req) => ({ replayed: (await handle().replayWebhooks(parse(replayBody, req))).length })),
  ];
}

/** Wraps a simulator's synchronous actions into the common handle. */
export function buildHandle(
  server: RunningSimServer,
  webhooks: WebhookDispatcher,
  actions: SimulatorActions,
  created: () => SimulatorStats['created'],
): GatewaySimulator {
  const settle =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    async (...args: A): Promise<R> => {
      const result = fn(...args);
      await webhooks.idle();
      return result;
    };
  return {
    url: server.url,
    payPayment: settle(actions.payPayment.bind(actions)),
    declinePayment: settle(actions.declinePayment.bind(actions)),
    expirePayment: settle(actions.expirePayment.bind(actions)),
    setPaymentStatus: settle(actions.setPaymentStatus.bind(actions)),
    completeCheckout: settle(actions.completeCheckout.bind(actions)),
    raceNextDeactivation: settle(actions.raceNextDeactivation.bind(actions)),
    renewSubscription: settle(actions.renewSubscription.bind(actions)),
    failSubscriptionCharge: settle(actions.failSubscriptionCharge.bind(actions)),
    markPastDue: settle(actions.markPastDue.bind(actions)),
    endTrial: settle(actions.endTrial.bind(actions)),
    setSubscriptionStatus: settle(actions.setSubscriptionStatus.bind(actions)),
    settleRefund: settle(actions.settleRefund.bind(actions)),
    failRefund: settle(actions.failRefund.bind(actions)),
    setRefundStatus: settle(actions.setRefundStatus.bind(actions)),
    setRefundSettlement: settle(actions.setRefundSettlement.bind(actions)),
    injectFault: (operation, fault, times = 1) => server.faults.inject(operation, faultSchema.parse(fault), times),
    clearFaults: () => server.faults.clear(),
    stats: () => ({ created: created(), calls: { ...server.calls } }),
    setWebhookUrl: (url) => webhooks.setUrl(url),
    setWebhooksEnabled: (enabled) => webhooks.setEnabled(enabled),
    webhookLog: () => webhooks.deliveries(),
    replayWebhooks: (options) => webhooks.replay(options),
    flushWebhooks: () => webhooks.idle(),
    close: async () => {
      await webhooks.idle();
      await server.close();
    },
  };
}

/** What a simulator holds that its start needs: its webhooks, its counters, and where it listens. */
export interface SimulatorState {
  baseUrl: string;
  readonly webhooks: WebhookDispatcher;
  readonly created: SimulatorStats['created'];
}

/** A simulator's parts: its wire (protocol, API and page routes) over its state, and the operator's actions on it. */
export interface SimulatorParts {
  protocol: SimProtocol;
  api: SimRoute[];
  pages: (handle: () => GatewaySimulator) => SimRoute[];
  actions: SimulatorActions;
}

/** Starts a simulator from its parts, with the common `/_sim/` control surface, and answers its handle. */
export async function launchSimulator(options: { port?: number; host?: string }, state: SimulatorState, parts: SimulatorParts): Promise<GatewaySimulator> {
  let handle: GatewaySimulator | undefined;
  const server = await startSimServer({
    port: options.port,
    host: options.host,
    protocol: parts.protocol,
    routes: [...parts.api, ...parts.pages(() => handle!), ...controlRoutes(() => handle!)],
  });
  state.baseUrl = server.url;
  handle = buildHandle(server, state.webhooks, parts.actions, () => ({ ...state.created }));
  return handle;
}
