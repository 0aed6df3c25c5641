/**
 * gateway_b: Basic auth with the API key, amounts in decimal reais, idempotency
 * by `referenciaExterna`, Pix QR fetched separately, and thin token-authenticated
 * webhooks that this adapter confirms by fetching the resource.
 */
import type { z } from 'zod';
import type {
  CancelSubscriptionOptions,
  CreatePaymentInput,
  CreateSubscriptionInput,
  GatewayAdapter,
  GatewayAdapterConfig,
  GatewayCapabilities,
  GatewayCustomer,
  GatewayEvent,
  InboundWebhook,
  PaymentSnapshot,
  PixCode,
  SubscriptionSnapshot,
} from '../adapter';
import { parseCredentials } from '../credentials';
import { phoneDigits } from '../customer';
import { GatewayFailure, WebhookRejectedError } from '../errors';
import { GatewayHttpClient } from '../http-client';
import { expectAnswer, expectFound, type FieldMapping } from '../responses';
import { headerValue, safeEqual } from '../signing';
import { mapStatus } from '../status-table';
import { parseWebhookBody } from '../webhook-payload';
import { centsToReais } from './money';
import { paymentStatusTable, subscriptionStatusTable } from './status-map';
import {
  assinaturaSchema,
  cobrancaSchema,
  credentialsSchema,
  errosSchema,
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
  private readonly http: GatewayHttpClient;
  private readonly credentials: GatewayBCredentials;

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
      default:
        return [];
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async fetchCobranca(gatewayRef: string): Promise<ParsedCobranca> {
    const response = await this.http.send({ method: 'GET', path: `/api/v3/cobrancas/${encodeURIComponent(gatewayRef)}` });
    return expectFound(PROVIDER, response, cobrancaSchema, 'get cobranca');
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
