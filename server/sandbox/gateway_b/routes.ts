/**
 * gateway_b's wire, as the adapter sees it: its authentication and error
 * bodies, its API routes and its hosted payment pages. Each route reads and
 * changes the simulator's state (state.ts).
 */
import { z } from 'zod';
import { sandboxPix, type SandboxPixReceiver } from '../simulator/brcode';
import { hostedCheckoutRoutes, withParams, type CheckoutOutcome } from '../simulator/checkout-page';
import type { GatewaySimulator } from '../simulator/control';
import { addDays, addInterval, newId, returnUrlSchema } from '../simulator/fixtures';
import type { SimProtocol, SimResponse, SimRoute } from '../simulator/server';
import { headerValue, safeEqual } from '../../gateways/signing';
import { reaisToCents } from '../../gateways/gateway_b/money';
import type { Assinatura, Cobranca } from '../../gateways/gateway_b/wire';
import { DEVOLUCAO_ID, pixTransactionId, refundRefusal, type RefundRefusal } from '../simulator/refunds';
import { day, GatewayBState, interval, OPEN_ASSINATURA, PAID_COBRANCA, PIX_LIFETIME_MS, SANDBOX_ISPB, type GatewayBRefundWire } from './state';

const MAX_PARCELAS = 24;

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
const estornoInput = z.object({
  referenciaExterna: z.string().min(1).max(255),
  valor,
  motivo: z.string().max(500).optional(),
});
const devolucaoInput = z.object({ valor, descricao: z.string().max(140).optional() });
const cancelarInput = z.object({ noFimDoCiclo: z.boolean().default(false) });

function erro(status: number, codigo: string, descricao: string, campo?: string): SimResponse {
  return { status, body: { erros: [{ codigo, descricao, ...(campo ? { campo } : {}) }] } };
}

function refuse(issues: z.core.$ZodIssue[]): SimResponse {
  const campo = issues[0]?.path.join('.') ?? 'corpo';
  return erro(422, 'campo_invalido', `${campo} inválido`, campo);
}

/** gateway_b's refusal of an estorno or devolução: 422 with its codigo, and `campo: "valor"` where the amount is the reason. */
const REFUND_REFUSAL_ANSWERS: Record<Exclude<RefundRefusal, 'partial_not_supported'>, SimResponse> = {
  not_paid: erro(422, 'cobranca_nao_paga', 'A cobrança não está paga'),
  fully_refunded: erro(422, 'cobranca_ja_estornada', 'A cobrança já foi devolvida por inteiro', 'valor'),
  exceeds_refundable: erro(422, 'valor_acima_do_disponivel', 'O valor excede o disponível para devolução', 'valor'),
};

/** How gateway_b authenticates and answers errors. */
export function protocolOf(state: GatewayBState): SimProtocol {
  const expectedAuth = `Basic ${Buffer.from(`${state.credentials.apiKey}:`, 'utf8').toString('base64')}`;
  return {
    authenticate: (req) => (safeEqual(headerValue(req.headers, 'authorization') ?? '', expectedAuth) ? null : erro(401, 'nao_autorizado', 'Chave de API inválida')),
    errorResponse: (status, message) => erro(status, status >= 500 ? 'erro_interno' : 'requisicao_invalida', message),
    validationResponse: (field, message) => erro(422, 'campo_invalido', message, field),
    defaultValidationField: (operation) =>
      operation === 'createPayment' ? 'parcelas' : operation === 'createSubscription' ? 'cliente.email' : operation === 'createRefund' ? 'valor' : 'id',
  };
}

/** The API the adapter calls. */
export function apiRoutes(state: GatewayBState): SimRoute[] {
  return [
    {
      method: 'POST',
      pattern: '/api/v3/cobrancas',
      operation: 'createPayment',
      handler: async (req) => {
        const input = cobrancaInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        const existing = state.porReferencia.get(`cobranca:${input.data.referenciaExterna}`);
        if (existing !== undefined) return { status: 200, body: state.cobrancas.get(existing) };
        const id = newId('cob_');
        const cobranca: Cobranca = {
          id,
          status: 'PENDENTE',
          valor: input.data.valor,
          formaPagamento: input.data.formaPagamento,
          parcelas: input.data.formaPagamento === 'CARTAO' ? input.data.parcelas : 1,
          referenciaExterna: input.data.referenciaExterna,
          linkPagamento: input.data.formaPagamento === 'CARTAO' ? `${state.baseUrl}/pagar/${id}` : null,
          assinatura: null,
          cartao: null,
          urlRetorno: input.data.urlRetorno ?? null,
          endToEndId: null,
          pagoEm: null,
          criadoEm: new Date().toISOString(),
        };
        if (input.data.formaPagamento === 'PIX') state.pixCodes.set(id, await sandboxPix(PIX_RECEIVER, id, reaisToCents(input.data.valor)!));
        state.cobrancas.set(id, cobranca);
        state.pageInfo.set(id, { description: input.data.descricao ?? null, customerName: input.data.cliente.nome });
        state.porReferencia.set(`cobranca:${input.data.referenciaExterna}`, id);
        state.created.payments += 1;
        return { status: 201, body: cobranca };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v3/cobrancas/:id',
      operation: 'getPayment',
      handler: (req) => {
        const cobranca = state.cobrancas.get(req.params.id ?? '');
        return cobranca ? { status: 200, body: cobranca } : erro(404, 'nao_encontrado', 'Cobrança não encontrada');
      },
    },
    {
      method: 'GET',
      pattern: '/api/v3/pix/:id/qrcode',
      operation: 'getPixQrCode',
      handler: (req) => {
        const cobranca = state.cobrancas.get(req.params.id ?? '');
        if (!cobranca || cobranca.formaPagamento !== 'PIX') return erro(404, 'nao_encontrado', 'Cobrança Pix não encontrada');
        if (cobranca.status !== 'PENDENTE') return erro(409, 'cobranca_nao_pendente', 'A cobrança não aguarda pagamento');
        const expiraEm = new Date(new Date(cobranca.criadoEm).getTime() + PIX_LIFETIME_MS).toISOString();
        const pix = state.pixCodes.get(cobranca.id)!;
        return { status: 200, body: { imagemBase64: pix.pngBase64, copiaECola: pix.text, expiraEm } };
      },
    },
    ...refundRoutes(state),
    {
      method: 'POST',
      pattern: '/api/v3/assinaturas',
      operation: 'createSubscription',
      handler: (req) => {
        const input = assinaturaInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        const existing = state.porReferencia.get(`assinatura:${input.data.referenciaExterna}`);
        if (existing !== undefined) return { status: 200, body: state.assinaturas.get(existing) };
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
          linkPagamento: `${state.baseUrl}/pagar/${id}`,
          referenciaExterna: input.data.referenciaExterna,
          urlRetorno: input.data.urlRetorno ?? null,
          criadoEm: start.toISOString(),
        };
        state.assinaturas.set(id, assinatura);
        state.pageInfo.set(id, { description: null, customerName: input.data.cliente.nome });
        state.porReferencia.set(`assinatura:${input.data.referenciaExterna}`, id);
        state.created.subscriptions += 1;
        return { status: 201, body: assinatura };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v3/assinaturas/:id',
      operation: 'getSubscription',
      handler: (req) => {
        const assinatura = state.assinaturas.get(req.params.id ?? '');
        return assinatura ? { status: 200, body: assinatura } : erro(404, 'nao_encontrado', 'Assinatura não encontrada');
      },
    },
    {
      method: 'POST',
      pattern: '/api/v3/assinaturas/:id/cancelar',
      operation: 'cancelSubscription',
      handler: (req) => {
        const assinatura = state.assinaturas.get(req.params.id ?? '');
        if (!assinatura) return erro(404, 'nao_encontrado', 'Assinatura não encontrada');
        const input = cancelarInput.safeParse(req.body ?? {});
        if (!input.success) return refuse(input.error.issues);
        if (!OPEN_ASSINATURA.includes(assinatura.status)) return erro(409, 'assinatura_encerrada', 'A assinatura já terminou');
        if (input.data.noFimDoCiclo) {
          assinatura.cancelarNoFimDoCiclo = true;
          state.notify('ASSINATURA_ATUALIZADA', assinatura.id);
        } else {
          state.endAssinatura(assinatura, 'CANCELADA');
        }
        return { status: 200, body: assinatura };
      },
    },
  ];
}

/** What a browser opens: the hosted checkout pages. */
export function pageRoutes(state: GatewayBState, handle: () => GatewaySimulator): SimRoute[] {
  return hostedCheckoutRoutes({
    pattern: '/pagar/:ref',
    brand: { title: 'Gateway B Cobranças', accent: '#047857' },
    handle,
    view(ref) {
      const info = state.pageInfo.get(ref);
      const c = state.cobrancas.get(ref);
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
      const a = state.assinaturas.get(ref);
      if (!a) return null;
      return {
        kind: 'subscription',
        amount: reaisToCents(a.valor) ?? 0,
        installments: 1,
        interval: interval(a.ciclo),
        trialDays: a.diasTeste,
        description: null,
        customerName: info?.customerName ?? null,
        open: OPEN_ASSINATURA.includes(a.status) && !state.checkoutDone.has(a.id),
        rawStatus: state.checkoutDone.has(a.id) ? 'CARTAO_CADASTRADO' : a.status,
        returnUrl: a.urlRetorno ?? null,
      };
    },
    returnTo: (returnUrl, ref, outcome) =>
      withParams(returnUrl, { [ref.startsWith('ass_') ? 'assinatura' : 'cobranca']: ref, situacao: SITUACAO_RETORNO[outcome] }),
  });
}

/**
 * Refunds: estornos of card cobranças (deduplicated on `referenciaExterna`)
 * and Pix devoluções (`PUT /api/v3/pix/{e2eid}/devolucao/{id}`, the id chosen
 * by the client, so repeating the PUT answers the devolução it made). Both
 * start pending unless the sandbox settles refunds at once.
 */
function refundRoutes(state: GatewayBState): SimRoute[] {
  /** Checks the amount against the cobrança and records the refund; settled at once when the sandbox says so. */
  const open = (cobranca: Cobranca, amount: number, scopeKey: string, wire: GatewayBRefundWire): SimResponse => {
    const paymentAmount = reaisToCents(cobranca.valor)!;
    const refusal = refundRefusal({ paid: PAID_COBRANCA.includes(cobranca.status), paymentAmount, refundable: state.refunds.refundable(cobranca.id, paymentAmount), amount });
    if (refusal && refusal !== 'partial_not_supported') return REFUND_REFUSAL_ANSWERS[refusal];
    wire.status = GatewayBState.refundStatus(wire, 'pending');
    // A devolução id is unique only within its Pix: the ledger names it `<e2eid>/<id>`, the controls by its id or rtrId.
    const devolucao = 'rtrId' in wire;
    const refund = state.refunds.add(
      { ref: devolucao ? `${wire.endToEndId}/${wire.id}` : wire.id, aliases: devolucao ? [wire.id, wire.rtrId] : [], paymentRef: cobranca.id, amount, state: 'pending', wire },
      scopeKey,
    );
    state.created.refunds += 1;
    if (state.refunds.settlement === 'at-once') state.moveRefund(refund, 'succeeded');
    return { status: 201, body: refund.wire };
  };
  return [
    {
      method: 'POST',
      pattern: '/api/v3/cobrancas/:id/estornos',
      operation: 'createRefund',
      handler: (req) => {
        const input = estornoInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        const scopeKey = `estorno:${input.data.referenciaExterna}`;
        const seen = state.refunds.replayed(scopeKey);
        if (seen) return { status: 200, body: seen.wire };
        const cobranca = state.cobrancas.get(req.params.id ?? '');
        if (!cobranca) return erro(404, 'nao_encontrado', 'Cobrança não encontrada');
        if (cobranca.formaPagamento !== 'CARTAO') return erro(422, 'forma_pagamento_invalida', 'Cobranças Pix são devolvidas por devolução Pix', 'formaPagamento');
        return open(cobranca, reaisToCents(input.data.valor)!, scopeKey, {
          id: newId('est_'),
          cobranca: cobranca.id,
          valor: input.data.valor,
          status: '',
          referenciaExterna: input.data.referenciaExterna,
          motivo: input.data.motivo ?? null,
          motivoFalha: null,
          criadoEm: new Date().toISOString(),
          estornadoEm: null,
        });
      },
    },
    {
      method: 'GET',
      pattern: '/api/v3/estornos/:id',
      operation: 'getRefund',
      handler: (req) => {
        const refund = state.refunds.get(req.params.id ?? '');
        return refund && !('rtrId' in refund.wire) ? { status: 200, body: refund.wire } : erro(404, 'nao_encontrado', 'Estorno não encontrado');
      },
    },
    {
      method: 'PUT',
      pattern: '/api/v3/pix/:e2eid/devolucao/:id',
      operation: 'createRefund',
      handler: (req) => {
        const endToEndId = req.params.e2eid ?? '';
        const id = req.params.id ?? '';
        if (!DEVOLUCAO_ID.test(id)) return erro(422, 'campo_invalido', 'O id da devolução tem de 1 a 35 letras ou dígitos', 'id');
        const cobranca = state.cobrancaByEndToEndId(endToEndId);
        if (!cobranca) return erro(404, 'nao_encontrado', 'Pix não encontrado para este endToEndId');
        const scopeKey = `devolucao:${endToEndId}:${id}`;
        const seen = state.refunds.replayed(scopeKey);
        if (seen) return { status: 200, body: seen.wire };
        const input = devolucaoInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        return open(cobranca, reaisToCents(input.data.valor)!, scopeKey, {
          id,
          rtrId: pixTransactionId('D', SANDBOX_ISPB),
          endToEndId,
          cobranca: cobranca.id,
          valor: input.data.valor,
          status: '',
          descricao: input.data.descricao ?? null,
          motivo: null,
          horario: { solicitacao: new Date().toISOString(), liquidacao: null },
        });
      },
    },
    {
      method: 'GET',
      pattern: '/api/v3/pix/:e2eid/devolucao/:id',
      operation: 'getRefund',
      handler: (req) => {
        const seen = state.refunds.replayed(`devolucao:${req.params.e2eid ?? ''}:${req.params.id ?? ''}`);
        return seen ? { status: 200, body: seen.wire } : erro(404, 'nao_encontrado', 'Devolução não encontrada');
      },
    },
  ];
}
