/**
 * gateway_b: Basic auth with the API key, amounts in decimal reais, idempotency
 * by `referenciaExterna`, Pix QR fetched separately, and thin token-authenticated
 * webhooks that this adapter confirms by fetching the resource.
 */
import type { z } from 'zod';
import type {
  CancelSubscriptionOptions,
  CreatePaymentInput,
  CreateRefundInput,
  CreateSubscriptionInput,
  GatewayAdapter,
  GatewayAdapterConfig,
  GatewayCapabilities,
  GatewayCustomer,
  GatewayEvent,
  InboundWebhook,
  PaymentSnapshot,
  PixCode,
  RefundSnapshot,
  SubscriptionSnapshot,
} from '../adapter';
import { parseCredentials } from '../credentials';
import { phoneDigits } from '../customer';
import { GatewayFailure, WebhookRejectedError } from '../errors';
import { GatewayHttpClient, type GatewayResponse } from '../http-client';
import { devolucaoId, EndToEndIds } from '../pix-devolucao';
import { expectAnswer, expectFound, type FieldMapping } from '../responses';
import { headerValue, safeEqual } from '../signing';
import { mapStatus } from '../status-table';
import { parseWebhookBody } from '../webhook-payload';
import { centsToReais } from './money';
import { devolucaoStatusTable, estornoStatusTable, paymentStatusTable, subscriptionStatusTable } from './status-map';
import {
  assinaturaSchema,
  cobrancaSchema,
  credentialsSchema,
  devolucaoSchema,
  errosSchema,
  estornoSchema,
  notificacaoSchema,
  qrCodeSchema,
  TOKEN_HEADER,
  type GatewayBCredentials,
} from './wire';

const PROVIDER = 'gateway_b';

export const gatewayBCapabilities: GatewayCapabilities = {
  methods: ['pix', 'card'],
  maxInstallments: 24,
  // gateway_b has no API to cancel a charge: an unpaid checkout expires by itself.
  paymentCancel: false,
  subscriptionCancelAtPeriodEnd: true,
  phoneRequiredForCard: false,
  phoneRequiredForSubscription: false,
  planIdRequired: false,
  refunds: 'partial',
};

const FIELD_PATHS: Record<string, FieldMapping> = {
  valor: { path: ['amount'], message: 'The gateway refused the amount.' },
  parcelas: { path: ['card', 'installments'], message: 'gateway_b accepts 1 to 24 installments.' },
  'cliente.nome': { path: ['customer', 'name'], message: 'The gateway refused the customer name.' },
  'cliente.email': { path: ['customer', 'email'], message: 'The gateway refused the customer e-mail.' },
  'cliente.cpfCnpj': { path: ['customer', 'document'], message: 'The gateway refused the customer document.' },
  'cliente.telefone': { path: ['customer', 'phone'], message: 'The gateway refused the customer phone.' },
  ciclo: { path: ['interval'], message: 'The gateway refused the interval.' },
  diasTeste: { path: ['trialDays'], message: 'The gateway refused the trial days.' },
  urlRetorno: { path: ['returnUrl'], message: 'The gateway refused the return URL: it must be an absolute http(s) URL.' },
};

const refusal = {
  fields: (body: unknown) => {
    const parsed = errosSchema.safeParse(body);
    if (!parsed.success) return null;
    const fields = parsed.data.erros.map((erro) => erro.campo);
    return fields.every((field): field is string => field !== undefined) ? fields : null;
  },
  map: FIELD_PATHS,
};

/** gateway_b's refusals of an estorno or devolução (422 `codigo`), on our request. */
const REFUND_REFUSALS: Record<string, FieldMapping> = {
  valor_acima_do_disponivel: { path: ['amount'], message: 'gateway_b refused the amount: it is more than the payment has left to refund there.' },
  cobranca_ja_estornada: { path: ['amount'], message: 'gateway_b says the payment was already refunded in full.' },
  cobranca_nao_paga: { path: [], message: 'gateway_b says the payment is not paid there, so nothing can be refunded.' },
};

const refundRefusal = {
  fields: (body: unknown) => {
    const parsed = errosSchema.safeParse(body);
    if (!parsed.success) return null;
    const fields = parsed.data.erros.map((erro) => (Object.hasOwn(REFUND_REFUSALS, erro.codigo) ? erro.codigo : erro.campo));
    return fields.every((field): field is string => field !== undefined) ? fields : null;
  },
  map: { ...REFUND_REFUSALS, valor: FIELD_PATHS.valor!, motivo: { path: ['reason'], message: 'The gateway refused the reason.' }, descricao: { path: ['reason'], message: 'The gateway refused the reason.' } },
};

/** A refund call naming a charge the gateway does not know: the reference leads nowhere, as on a read. */
function expectRefund<T>(response: GatewayResponse, schema: z.ZodType<T, unknown>, what: string): T {
  if (response.status === 404) throw GatewayFailure.missing(PROVIDER, what);
  return expectAnswer(PROVIDER, response, schema, what, refundRefusal);
}

type ParsedEstorno = z.output<typeof estornoSchema>;
type ParsedDevolucao = z.output<typeof devolucaoSchema>;

function estornoSnapshot(estorno: ParsedEstorno): RefundSnapshot {
  const mapped = mapStatus(estornoStatusTable, estorno.status);
  return {
    gatewayRef: estorno.id,
    paymentRef: estorno.cobranca,
    status: mapped.status,
    rawStatus: estorno.status,
    statusKnown: mapped.known,
    amount: estorno.valor,
    failureReason: mapped.status === 'failed' ? estorno.motivoFalha : null,
  };
}

function devolucaoSnapshot(devolucao: ParsedDevolucao): RefundSnapshot {
  const mapped = mapStatus(devolucaoStatusTable, devolucao.status);
  return {
    gatewayRef: devolucao.id,
    paymentRef: devolucao.cobranca,
    status: mapped.status,
    rawStatus: devolucao.status,
    statusKnown: mapped.known,
    amount: devolucao.valor,
    failureReason: mapped.status === 'failed' ? devolucao.motivo : null,
  };
}

/** Estornos are `est_…`; anything else we hold is a devolução id (hex, see pix-devolucao.ts). */
const isEstorno = (refundRef: string) => refundRef.startsWith('est_');

type ParsedCobranca = z.output<typeof cobrancaSchema>;
type ParsedAssinatura = z.output<typeof assinaturaSchema>;

/** `YYYY-MM-DD` is a calendar day in Brazil; we report its start in UTC. */
const dayToIso = (day: string | null): string | null => (day === null ? null : `${day}T00:00:00.000Z`);

/** A Pix code as the gateway handed it over, with the moment it stops being payable. */
interface PixHandover {
  code: PixCode;
  expiresAt: string;
}

function toPaymentSnapshot(cobranca: ParsedCobranca, pix: PixHandover | null): PaymentSnapshot {
  const mapped = mapStatus(paymentStatusTable, cobranca.status);
  const method = cobranca.formaPagamento === 'PIX' ? 'pix' : 'card';
  return {
    gatewayRef: cobranca.id,
    status: mapped.status,
    rawStatus: cobranca.status,
    statusKnown: mapped.known,
    method,
    amount: cobranca.valor,
    checkoutUrl: method === 'card' ? cobranca.linkPagamento : null,
    pix: method === 'pix' ? (pix?.code ?? null) : null,
    card: cobranca.cartao ? { brand: cobranca.cartao.bandeira, last4: cobranca.cartao.ultimosDigitos } : null,
    subscriptionRef: cobranca.assinatura,
    expiresAt: method === 'pix' ? (pix?.expiresAt ?? null) : null,
    paidAt: cobranca.pagoEm,
  };
}

function toSubscriptionSnapshot(assinatura: ParsedAssinatura): SubscriptionSnapshot {
  const mapped = mapStatus(subscriptionStatusTable, assinatura.status);
  return {
    gatewayRef: assinatura.id,
    status: mapped.status,
    rawStatus: assinatura.status,
    statusKnown: mapped.known,
    checkoutUrl: assinatura.linkPagamento,
    nextBillingAt: mapped.status === 'canceled' ? null : dayToIso(assinatura.proximoVencimento),
    trialEndsAt: dayToIso(assinatura.fimTeste),
    cancelAtPeriodEnd: assinatura.cancelarNoFimDoCiclo,
    canceledAt: assinatura.canceladaEm,
  };
}

function cliente(customer: GatewayCustomer) {
  const telefone = phoneDigits(customer.phone);
  return {
    nome: customer.name,
    email: customer.email,
    cpfCnpj: customer.document,
    ...(telefone ? { telefone } : {}),
  };
}

export class GatewayBAdapter implements GatewayAdapter {
  readonly name = PROVIDER;
  readonly capabilities = gatewayBCapabilities;
  /** Its notifications carry no time: each is dated by the fetch of the state it reports, on this service's clock. */
  readonly eventClockResolutionMs = 1;
  private readonly http: GatewayHttpClient;
  private readonly credentials: GatewayBCredentials;
  private readonly endToEndIds = new EndToEndIds();

  constructor(config: GatewayAdapterConfig) {
    this.credentials = parseCredentials(PROVIDER, credentialsSchema, config.credentials);
    this.http = new GatewayHttpClient(PROVIDER, config.baseUrl, config, {
      authorization: `Basic ${Buffer.from(`${this.credentials.apiKey}:`, 'utf8').toString('base64')}`,
    });
  }

  async createPayment(input: CreatePaymentInput): Promise<PaymentSnapshot> {
    const response = await this.http.send({
      method: 'POST',
      path: '/api/v3/cobrancas',
      body: {
        referenciaExterna: input.idempotencyKey,
        valor: centsToReais(input.amount),
        formaPagamento: input.method === 'pix' ? 'PIX' : 'CARTAO',
        parcelas: input.method === 'card' ? (input.installments ?? 1) : 1,
        ...(input.description ? { descricao: input.description } : {}),
        cliente: cliente(input.customer),
        ...(input.returnUrl ? { urlRetorno: input.returnUrl } : {}),
      },
    });
    const cobranca = expectAnswer(PROVIDER, response, cobrancaSchema, 'create cobranca', refusal);
    return toPaymentSnapshot(cobranca, await this.pixCodeIfOpen(cobranca));
  }

  async getPayment(gatewayRef: string): Promise<PaymentSnapshot> {
    const cobranca = await this.fetchCobranca(gatewayRef);
    return toPaymentSnapshot(cobranca, await this.pixCodeIfOpen(cobranca));
  }

  async cancelPayment(): Promise<PaymentSnapshot> {
    throw GatewayFailure.unsupported(PROVIDER, { action: 'cancel' });
  }

  /**
   * Card: an estorno of the cobrança, deduplicated on `referenciaExterna` (the
   * refund's key). Pix: a devolução `PUT` on the cobrança's endToEndId (read
   * first) with an id derived from the key. Either way a retry finds the same one.
   */
  async createRefund(input: CreateRefundInput): Promise<RefundSnapshot> {
    if (input.method === 'pix') {
      const endToEndId = await this.endToEndIdOf(input.paymentRef);
      if (!endToEndId) throw GatewayFailure.refused(PROVIDER, [{ ...REFUND_REFUSALS.cobranca_nao_paga!, path: [] }]);
      const response = await this.http.send({
        method: 'PUT',
        path: `/api/v3/pix/${encodeURIComponent(endToEndId)}/devolucao/${devolucaoId(input.idempotencyKey)}`,
        body: { valor: centsToReais(input.amount), ...(input.reason ? { descricao: input.reason } : {}) },
      });
      return devolucaoSnapshot(expectRefund(response, devolucaoSchema, 'create pix devolucao'));
    }
    const response = await this.http.send({
      method: 'POST',
      path: `/api/v3/cobrancas/${encodeURIComponent(input.paymentRef)}/estornos`,
      body: { referenciaExterna: input.idempotencyKey, valor: centsToReais(input.amount), ...(input.reason ? { motivo: input.reason } : {}) },
    });
    return estornoSnapshot(expectRefund(response, estornoSchema, 'create estorno'));
  }

  async getRefund(refundRef: string, paymentRef: string): Promise<RefundSnapshot> {
    if (isEstorno(refundRef)) return estornoSnapshot(await this.fetchEstorno(refundRef));
    const endToEndId = await this.endToEndIdOf(paymentRef);
    // A Pix never received has no endToEndId, so no devolução of it can exist.
    if (!endToEndId) throw GatewayFailure.missing(PROVIDER, 'get pix devolucao');
    return devolucaoSnapshot(await this.fetchDevolucao(endToEndId, refundRef));
  }

  async createSubscription(input: CreateSubscriptionInput): Promise<SubscriptionSnapshot> {
    const response = await this.http.send({
      method: 'POST',
      path: '/api/v3/assinaturas',
      body: {
        referenciaExterna: input.idempotencyKey,
        valor: centsToReais(input.amount),
        ciclo: input.interval === 'monthly' ? 'MENSAL' : 'ANUAL',
        diasTeste: input.trialDays,
        cliente: cliente(input.customer),
        ...(input.returnUrl ? { urlRetorno: input.returnUrl } : {}),
      },
    });
    return toSubscriptionSnapshot(expectAnswer(PROVIDER, response, assinaturaSchema, 'create assinatura', refusal));
  }

  async getSubscription(gatewayRef: string): Promise<SubscriptionSnapshot> {
    return toSubscriptionSnapshot(await this.fetchAssinatura(gatewayRef));
  }

  async cancelSubscription(gatewayRef: string, options: CancelSubscriptionOptions): Promise<SubscriptionSnapshot> {
    const response = await this.http.send({
      method: 'POST',
      path: `/api/v3/assinaturas/${encodeURIComponent(gatewayRef)}/cancelar`,
      body: { noFimDoCiclo: options.atPeriodEnd },
    });
    return toSubscriptionSnapshot(expectAnswer(PROVIDER, response, assinaturaSchema, 'cancel assinatura'));
  }

  /**
   * The notification names only an event and a resource id, and its token is
   * a static shared secret, so nothing in it is trusted: the state comes from
   * fetching the resource. Replays and out-of-order deliveries therefore all
   * report the current state.
   */
  async parseWebhook(input: InboundWebhook): Promise<GatewayEvent[]> {
    const token = headerValue(input.headers, TOKEN_HEADER);
    if (!token) throw new WebhookRejectedError(PROVIDER, 'missing_signature');
    if (!safeEqual(token, this.credentials.webhookToken)) throw new WebhookRejectedError(PROVIDER, 'invalid_signature');
    const notificacao = parseWebhookBody(PROVIDER, input.rawBody, notificacaoSchema);
    // What is applied is the state fetched now, not the notification's: it is dated from the fetch (decision 17), so a
    // redelivered old notification carries today's state and is never taken for stale.
    const base = { eventId: notificacao.eventoId, occurredAt: new Date().toISOString() };
    switch (notificacao.evento) {
      case 'COBRANCA_ATUALIZADA': {
        const payment = await this.getPayment(notificacao.recursoId);
        const settled = payment.status === 'paid' || payment.status === 'failed';
        if (payment.subscriptionRef && settled) {
          const subscription = await this.getSubscription(payment.subscriptionRef);
          return [
            {
              ...base,
              kind: 'subscription_charge',
              outcome: payment.status === 'paid' ? 'paid' : 'failed',
              subscriptionRef: payment.subscriptionRef,
              payment,
              nextBillingAt: subscription.nextBillingAt,
            },
          ];
        }
        return [{ ...base, kind: 'payment_status', payment }];
      }
      case 'ASSINATURA_ATUALIZADA':
        return [{ ...base, kind: 'subscription_status', subscription: await this.getSubscription(notificacao.recursoId) }];
      case 'ESTORNO_ATUALIZADO': {
        if (!isEstorno(notificacao.recursoId)) throw new WebhookRejectedError(PROVIDER, 'malformed_payload');
        return [{ ...base, kind: 'refund_status', refund: estornoSnapshot(await this.fetchEstorno(notificacao.recursoId)) }];
      }
      case 'DEVOLUCAO_ATUALIZADA': {
        // The devolução's URL needs its Pix: a notification without one is not gateway_b's.
        if (!notificacao.endToEndId) throw new WebhookRejectedError(PROVIDER, 'malformed_payload');
        return [{ ...base, kind: 'refund_status', refund: devolucaoSnapshot(await this.fetchDevolucao(notificacao.endToEndId, notificacao.recursoId)) }];
      }
      default:
        return [];
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async fetchCobranca(gatewayRef: string): Promise<ParsedCobranca> {
    const response = await this.http.send({ method: 'GET', path: `/api/v3/cobrancas/${encodeURIComponent(gatewayRef)}` });
    const cobranca = expectFound(PROVIDER, response, cobrancaSchema, 'get cobranca');
    this.endToEndIds.remember(cobranca.id, cobranca.endToEndId);
    return cobranca;
  }

  /** A received Pix's endToEndId: remembered from a read (notifications are confirmed by reads), else read now (null before). */
  private async endToEndIdOf(paymentRef: string): Promise<string | null> {
    return this.endToEndIds.get(paymentRef) ?? (await this.fetchCobranca(paymentRef)).endToEndId;
  }

  private async fetchEstorno(id: string): Promise<ParsedEstorno> {
    const response = await this.http.send({ method: 'GET', path: `/api/v3/estornos/${encodeURIComponent(id)}` });
    return expectFound(PROVIDER, response, estornoSchema, 'get estorno');
  }

  private async fetchDevolucao(endToEndId: string, id: string): Promise<ParsedDevolucao> {
    const response = await this.http.send({ method: 'GET', path: `/api/v3/pix/${encodeURIComponent(endToEndId)}/devolucao/${encodeURIComponent(id)}` });
    return expectFound(PROVIDER, response, devolucaoSchema, 'get pix devolucao');
  }

  private async fetchAssinatura(gatewayRef: string): Promise<ParsedAssinatura> {
    const response = await this.http.send({ method: 'GET', path: `/api/v3/assinaturas/${encodeURIComponent(gatewayRef)}` });
    return expectFound(PROVIDER, response, assinaturaSchema, 'get assinatura');
  }

  /**
   * The QR lives behind its own endpoint, which fails on its own. The charge
   * exists either way, so a failure leaves `pix` null instead of failing the
   * create (a retry would find the same charge); a later getPayment
   * (the service's sync) fetches it again.
   */
  private async pixCodeIfOpen(cobranca: ParsedCobranca): Promise<PixHandover | null> {
    if (cobranca.formaPagamento !== 'PIX' || mapStatus(paymentStatusTable, cobranca.status).status !== 'pending') return null;
    try {
      const response = await this.http.send({ method: 'GET', path: `/api/v3/pix/${encodeURIComponent(cobranca.id)}/qrcode` });
      const qr = expectAnswer(PROVIDER, response, qrCodeSchema, 'get pix qrcode');
      return { code: { qrCode: `data:image/png;base64,${qr.imagemBase64}`, qrCodeText: qr.copiaECola }, expiresAt: new Date(qr.expiraEm).toISOString() };
    } catch (error) {
      if (error instanceof GatewayFailure && error.kind === 'unavailable') return null;
      throw error;
    }
  }
}
