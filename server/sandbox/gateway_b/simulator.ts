/** In-memory gateway_b speaking gateways/gateway_b/PROTOCOL.md over real HTTP, with the common `/_sim/` control surface. */
import { z } from 'zod';
import type { SubscriptionInterval } from '../../contract/enums';
import { sandboxPix, warmUpQr, type SandboxPixReceiver } from '../simulator/brcode';
import { hostedCheckoutRoutes, withParams, type CheckoutOutcome } from '../simulator/checkout-page';
import { buildHandle, controlRoutes, type GatewaySimulator, type SimulatorActions, type SimulatorOptions } from '../simulator/control';
import { addDays, addInterval, DEFAULT_CARD, found, newId, requireOpen, returnUrlSchema } from '../simulator/fixtures';
import { SimControlError, startSimServer, type SimProtocol, type SimResponse, type SimRoute } from '../simulator/server';
import { WebhookDispatcher } from '../simulator/webhooks';
import { headerValue, safeEqual } from '../../gateways/signing';
import { reaisToCents } from '../../gateways/gateway_b/money';
import { credentialsSchema, TOKEN_HEADER, type Assinatura, type Cobranca, type GatewayBCredentials } from '../../gateways/gateway_b/wire';

const MAX_PARCELAS = 24;
const OPEN_COBRANCA = ['PENDENTE', 'EM_ANALISE', 'AUTORIZADO'];
const OPEN_ASSINATURA = ['EM_TESTE', 'ATIVA', 'INADIMPLENTE', 'SUSPENSA'];
const PIX_LIFETIME_MS = 30 * 60_000;

/** The sandbox account's own Pix receiver (an e-mail key): every simulated Pix is paid to it. */
const PIX_RECEIVER: SandboxPixReceiver = {
  pixKey: 'recebimentos@sandbox.gateway-b.example',
  merchantName: 'Gateway B Cobranças', // EMV field 59 holds 25 characters
  merchantCity: 'Florianópolis',
};

/** gateway_b's words for a checkout outcome in the return address (`situacao`). */
const SITUACAO_RETORNO: Record<CheckoutOutcome, string> = { paid: 'PAGO', declined: 'RECUSADO', abandoned: 'DESISTENCIA' };

const valor = z.string().refine((text) => (reaisToCents(text) ?? 0) > 0);
const clienteInput = z.object({
  nome: z.string().min(1),
  email: z.email(),
  cpfCnpj: z.string().regex(/^(\d{11}|\d{14})$/),
  telefone: z.string().optional(),
});
const cobrancaInput = z.object({
  referenciaExterna: z.string().min(1).max(255),
  valor,
  formaPagamento: z.enum(['PIX', 'CARTAO']),
  parcelas: z.number().int().min(1).max(MAX_PARCELAS).default(1),
  descricao: z.string().optional(),
  cliente: clienteInput,
  urlRetorno: returnUrlSchema.optional(),
});
const assinaturaInput = z.object({
  referenciaExterna: z.string().min(1).max(255),
  valor,
  ciclo: z.enum(['MENSAL', 'ANUAL']),
  diasTeste: z.number().int().min(0).max(365).default(0),
  cliente: clienteInput,
  urlRetorno: returnUrlSchema.optional(),
});
const cancelarInput = z.object({ noFimDoCiclo: z.boolean().default(false) });

const day = (date: Date) => date.toISOString().slice(0, 10);
const interval = (ciclo: Assinatura['ciclo']): SubscriptionInterval => (ciclo === 'MENSAL' ? 'monthly' : 'yearly');

function erro(status: number, codigo: string, descricao: string, campo?: string): SimResponse {
  return { status, body: { erros: [{ codigo, descricao, ...(campo ? { campo } : {}) }] } };
}

function refuse(issues: z.core.$ZodIssue[]): SimResponse {
  const campo = issues[0]?.path.join('.') ?? 'corpo';
  return erro(422, 'campo_invalido', `${campo} inválido`, campo);
}

export async function startGatewayBSimulator(options: SimulatorOptions<GatewayBCredentials>): Promise<GatewaySimulator> {
  const credentials = credentialsSchema.parse(options.credentials);
  await warmUpQr();
  const cobrancas = new Map<string, Cobranca>();
  const assinaturas = new Map<string, Assinatura>();
  const porReferencia = new Map<string, string>();
  /** A Pix charge's code and image, made once at creation and served by its own endpoint. */
  const pixCodes = new Map<string, { text: string; pngBase64: string }>();
  /** What the hosted page shows beyond the wire object. */
  const pageInfo = new Map<string, { description: string | null; customerName: string }>();
  const created = { payments: 0, subscriptions: 0, subscriptionCharges: 0 };
  /** Assinaturas whose customer already registered a card at the hosted page. */
  const checkoutDone = new Set<string>();
  let baseUrl = '';

  const webhooks = new WebhookDispatcher(options.webhookUrl ?? null, () => ({ [TOKEN_HEADER.toLowerCase()]: credentials.webhookToken }));
  const notify = (evento: string, recursoId: string) =>
    webhooks.emit(evento, { eventoId: newId('evb_'), evento, recursoId, criadoEm: new Date().toISOString() });

  const expectedAuth = `Basic ${Buffer.from(`${credentials.apiKey}:`, 'utf8').toString('base64')}`;
  const protocol: SimProtocol = {
    authenticate: (req) => (safeEqual(headerValue(req.headers, 'authorization') ?? '', expectedAuth) ? null : erro(401, 'nao_autorizado', 'Chave de API inválida')),
    errorResponse: (status, message) => erro(status, status >= 500 ? 'erro_interno' : 'requisicao_invalida', message),
    validationResponse: (field, message) => erro(422, 'campo_invalido', message, field),
    defaultValidationField: (operation) => (operation === 'createPayment' ? 'parcelas' : operation === 'createSubscription' ? 'cliente.email' : 'id'),
  };

  function setCobranca(cobranca: Cobranca, status: string, changes: Partial<Cobranca> = {}): void {
    Object.assign(cobranca, changes, { status });
    notify('COBRANCA_ATUALIZADA', cobranca.id);
  }

  function setAssinatura(assinatura: Assinatura, changes: Partial<Assinatura>): void {
    const before = assinatura.status;
    Object.assign(assinatura, changes);
    if (before !== assinatura.status) notify('ASSINATURA_ATUALIZADA', assinatura.id);
  }

  function chargeCycle(assinatura: Assinatura, status: 'CONFIRMADO' | 'RECUSADO'): Cobranca {
    const cobranca: Cobranca = {
      id: newId('cob_'),
      status,
      valor: assinatura.valor,
      formaPagamento: 'CARTAO',
      parcelas: 1,
      referenciaExterna: null,
      linkPagamento: null,
      assinatura: assinatura.id,
      cartao: status === 'CONFIRMADO' ? { bandeira: DEFAULT_CARD.brand, ultimosDigitos: DEFAULT_CARD.last4 } : null,
      urlRetorno: null,
      criadoEm: new Date().toISOString(),
    };
    cobrancas.set(cobranca.id, cobranca);
    created.subscriptionCharges += 1;
    notify('COBRANCA_ATUALIZADA', cobranca.id);
    return cobranca;
  }

  const api: SimRoute[] = [
    {
      method: 'POST',
      pattern: '/api/v3/cobrancas',
      operation: 'createPayment',
      handler: async (req) => {
        const input = cobrancaInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        const existing = porReferencia.get(`cobranca:${input.data.referenciaExterna}`);
        if (existing !== undefined) return { status: 200, body: cobrancas.get(existing) };
        const id = newId('cob_');
        const cobranca: Cobranca = {
          id,
          status: 'PENDENTE',
          valor: input.data.valor,
          formaPagamento: input.data.formaPagamento,
          parcelas: input.data.formaPagamento === 'CARTAO' ? input.data.parcelas : 1,
          referenciaExterna: input.data.referenciaExterna,
          linkPagamento: input.data.formaPagamento === 'CARTAO' ? `${baseUrl}/pagar/${id}` : null,
          assinatura: null,
          cartao: null,
          urlRetorno: input.data.urlRetorno ?? null,
          criadoEm: new Date().toISOString(),
        };
        if (input.data.formaPagamento === 'PIX') pixCodes.set(id, await sandboxPix(PIX_RECEIVER, id, reaisToCents(input.data.valor)!));
        cobrancas.set(id, cobranca);
        pageInfo.set(id, { description: input.data.descricao ?? null, customerName: input.data.cliente.nome });
        porReferencia.set(`cobranca:${input.data.referenciaExterna}`, id);
        created.payments += 1;
        return { status: 201, body: cobranca };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v3/cobrancas/:id',
      operation: 'getPayment',
      handler: (req) => {
        const cobranca = cobrancas.get(req.params.id ?? '');
        return cobranca ? { status: 200, body: cobranca } : erro(404, 'nao_encontrado', 'Cobrança não encontrada');
      },
    },
    {
      method: 'GET',
      pattern: '/api/v3/pix/:id/qrcode',
      operation: 'getPixQrCode',
      handler: (req) => {
        const cobranca = cobrancas.get(req.params.id ?? '');
        if (!cobranca || cobranca.formaPagamento !== 'PIX') return erro(404, 'nao_encontrado', 'Cobrança Pix não encontrada');
        if (cobranca.status !== 'PENDENTE') return erro(409, 'cobranca_nao_pendente', 'A cobrança não aguarda pagamento');
        const expiraEm = new Date(new Date(cobranca.criadoEm).getTime() + PIX_LIFETIME_MS).toISOString();
        const pix = pixCodes.get(cobranca.id)!;
        return { status: 200, body: { imagemBase64: pix.pngBase64, copiaECola: pix.text, expiraEm } };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v3/assinaturas',
      operation: 'createSubscription',
      handler: (req) => {
        const input = assinaturaInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        const existing = porReferencia.get(`assinatura:${input.data.referenciaExterna}`);
        if (existing !== undefined) return { status: 200, body: assinaturas.get(existing) };
        const id = newId('ass_');
        const start = new Date();
        const fimTeste = input.data.diasTeste > 0 ? addDays(start, input.data.diasTeste) : null;
        const assinatura: Assinatura = {
          id,
          status: fimTeste ? 'EM_TESTE' : 'ATIVA',
          valor: input.data.valor,
          ciclo: input.data.ciclo,
          diasTeste: input.data.diasTeste,
          fimTeste: fimTeste ? day(fimTeste) : null,
          proximoVencimento: day(fimTeste ?? addInterval(start, interval(input.data.ciclo))),
          cancelarNoFimDoCiclo: false,
          canceladaEm: null,
          linkPagamento: `${baseUrl}/pagar/${id}`,
          referenciaExterna: input.data.referenciaExterna,
          urlRetorno: input.data.urlRetorno ?? null,
          criadoEm: start.toISOString(),
        };
        assinaturas.set(id, assinatura);
        pageInfo.set(id, { description: null, customerName: input.data.cliente.nome });
        porReferencia.set(`assinatura:${input.data.referenciaExterna}`, id);
        created.subscriptions += 1;
        return { status: 201, body: assinatura };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v3/assinaturas/:id',
      operation: 'getSubscription',
      handler: (req) => {
        const assinatura = assinaturas.get(req.params.id ?? '');
        return assinatura ? { status: 200, body: assinatura } : erro(404, 'nao_encontrado', 'Assinatura não encontrada');
      },
    },
    {
      method: 'POST',
      pattern: '/api/v3/assinaturas/:id/cancelar',
      operation: 'cancelSubscription',
      handler: (req) => {
        const assinatura = assinaturas.get(req.params.id ?? '');
        if (!assinatura) return erro(404, 'nao_encontrado', 'Assinatura não encontrada');
        const input = cancelarInput.safeParse(req.body ?? {});
        if (!input.success) return refuse(input.error.issues);
        if (!OPEN_ASSINATURA.includes(assinatura.status)) return erro(409, 'assinatura_encerrada', 'A assinatura já terminou');
        if (input.data.noFimDoCiclo) {
          assinatura.cancelarNoFimDoCiclo = true;
          notify('ASSINATURA_ATUALIZADA', assinatura.id);
        } else {
          endAssinatura(assinatura, 'CANCELADA');
        }
        return { status: 200, body: assinatura };
      },
    },
  ];

  /** Ends a subscription; its unpaid charges are canceled with it. */
  function endAssinatura(assinatura: Assinatura, status: 'CANCELADA' | 'ENCERRADA'): void {
    setAssinatura(assinatura, { status, canceladaEm: new Date().toISOString(), proximoVencimento: null });
    for (const cobranca of cobrancas.values()) {
      if (cobranca.assinatura === assinatura.id && OPEN_COBRANCA.includes(cobranca.status)) setCobranca(cobranca, 'CANCELADO');
    }
  }

  const cobranca = (ref: string) => found(cobrancas, ref, 'cobrança');
  const assinatura = (ref: string) => found(assinaturas, ref, 'assinatura');

  const actions: SimulatorActions = {
    payPayment(ref, card) {
      const c = cobranca(ref);
      requireOpen(c.status, OPEN_COBRANCA, 'cobrança');
      if (c.formaPagamento === 'PIX') return setCobranca(c, 'RECEBIDO');
      const paidWith = card ?? DEFAULT_CARD;
      setCobranca(c, 'CONFIRMADO', { cartao: { bandeira: paidWith.brand, ultimosDigitos: paidWith.last4 } });
    },
    declinePayment(ref) {
      const c = cobranca(ref);
      requireOpen(c.status, OPEN_COBRANCA, 'cobrança');
      setCobranca(c, 'RECUSADO');
    },
    expirePayment(ref) {
      const c = cobranca(ref);
      requireOpen(c.status, OPEN_COBRANCA, 'cobrança');
      setCobranca(c, 'EXPIRADO');
    },
    setPaymentStatus(ref, rawStatus) {
      setCobranca(cobranca(ref), rawStatus);
    },
    completeCheckout(ref) {
      const a = assinatura(ref);
      requireOpen(a.status, OPEN_ASSINATURA, 'assinatura');
      checkoutDone.add(a.id);
      return { subscriptionRef: a.id };
    },
    raceNextDeactivation(ref) {
      assinatura(ref);
      throw new SimControlError(409, 'gateway_b assinaturas have no checkout link to deactivate');
    },
    renewSubscription(ref) {
      const a = assinatura(ref);
      requireOpen(a.status, OPEN_ASSINATURA, 'assinatura');
      if (a.cancelarNoFimDoCiclo) {
        endAssinatura(a, 'ENCERRADA');
        return { paymentRef: null };
      }
      const charge = chargeCycle(a, 'CONFIRMADO');
      const from = a.proximoVencimento ? new Date(`${a.proximoVencimento}T00:00:00.000Z`) : new Date();
      // The new due date is visible before the ATIVA notification goes out, so a fetch sees both.
      a.proximoVencimento = day(addInterval(from, interval(a.ciclo)));
      setAssinatura(a, { status: 'ATIVA' });
      return { paymentRef: charge.id };
    },
    failSubscriptionCharge(ref) {
      const a = assinatura(ref);
      requireOpen(a.status, OPEN_ASSINATURA, 'assinatura');
      return { paymentRef: chargeCycle(a, 'RECUSADO').id };
    },
    markPastDue(ref) {
      const a = assinatura(ref);
      requireOpen(a.status, OPEN_ASSINATURA, 'assinatura');
      setAssinatura(a, { status: 'INADIMPLENTE' });
    },
    endTrial(ref) {
      const a = assinatura(ref);
      if (a.status !== 'EM_TESTE') throw new SimControlError(409, `assinatura is ${a.status}`);
      setAssinatura(a, { status: 'ATIVA', fimTeste: day(new Date()) });
    },
    setSubscriptionStatus(ref, rawStatus) {
      const a = assinatura(ref);
      a.status = rawStatus;
      notify('ASSINATURA_ATUALIZADA', a.id);
    },
  };

  const checkoutPages = hostedCheckoutRoutes({
    pattern: '/pagar/:ref',
    brand: { title: 'Gateway B Cobranças', accent: '#047857' },
    handle: () => handle!,
    view(ref) {
      const info = pageInfo.get(ref);
      const c = cobrancas.get(ref);
      if (c && c.formaPagamento === 'CARTAO') {
        return {
          kind: 'payment',
          amount: reaisToCents(c.valor) ?? 0,
          installments: c.parcelas,
          interval: null,
          trialDays: 0,
          description: info?.description ?? null,
          customerName: info?.customerName ?? null,
          open: c.status === 'PENDENTE',
          rawStatus: c.status,
          returnUrl: c.urlRetorno ?? null,
        };
      }
      const a = assinaturas.get(ref);
      if (!a) return null;
      return {
        kind: 'subscription',
        amount: reaisToCents(a.valor) ?? 0,
        installments: 1,
        interval: interval(a.ciclo),
        trialDays: a.diasTeste,
        description: null,
        customerName: info?.customerName ?? null,
        open: OPEN_ASSINATURA.includes(a.status) && !checkoutDone.has(a.id),
        rawStatus: checkoutDone.has(a.id) ? 'CARTAO_CADASTRADO' : a.status,
        returnUrl: a.urlRetorno ?? null,
      };
    },
    returnTo: (returnUrl, ref, outcome) =>
      withParams(returnUrl, { [ref.startsWith('ass_') ? 'assinatura' : 'cobranca']: ref, situacao: SITUACAO_RETORNO[outcome] }),
  });

  let handle: GatewaySimulator | undefined;
  const server = await startSimServer({
    port: options.port,
    host: options.host,
    protocol,
    routes: [...api, ...checkoutPages, ...controlRoutes(() => handle!)],
  });
  baseUrl = server.url;
  handle = buildHandle(server, webhooks, actions, () => ({ ...created }));
  return handle;
}
