/**
 * gateway_b's sandbox state: what the simulated gateway holds in memory
 * (cobranças, assinaturas, their external references, Pix codes, what its
 * hosted pages show) and the changes that also notify, as the real gateway's
 * thin webhooks would. The wire routes (routes.ts) and the operator's
 * actions (actions.ts) both work on it.
 */
import type { SubscriptionInterval } from '../../contract/enums';
import { DEFAULT_CARD, found, newId } from '../simulator/fixtures';
import { pixTransactionId, RefundLedger, type SimRefund, type SimRefundState } from '../simulator/refunds';
import { WebhookDispatcher } from '../simulator/webhooks';
import { TOKEN_HEADER, type Assinatura, type Cobranca, type Devolucao, type Estorno, type GatewayBCredentials } from '../../gateways/gateway_b/wire';

/** Statuses in which the customer or the gateway can still act. */
export const OPEN_COBRANCA = ['PENDENTE', 'EM_ANALISE', 'AUTORIZADO'];
/** A cobrança paid: card confirmed, Pix received. */
export const PAID_COBRANCA = ['CONFIRMADO', 'RECEBIDO'];
export const OPEN_ASSINATURA = ['EM_TESTE', 'ATIVA', 'INADIMPLENTE', 'SUSPENSA'];
export const PIX_LIFETIME_MS = 30 * 60_000;
/** The sandbox's 8-digit ISPB in the Pix ids it hands out (end-to-end ids, rtrIds). */
export const SANDBOX_ISPB = '99990002';

/** A refund's words on gateway_b's wire: estornos in its own, devoluções in the Pix API's. */
const ESTORNO_STATUS: Record<SimRefundState, string> = { pending: 'SOLICITADO', succeeded: 'ESTORNADO', failed: 'FALHOU' };
const DEVOLUCAO_STATUS: Record<SimRefundState, string> = { pending: 'EM_PROCESSAMENTO', succeeded: 'DEVOLVIDO', failed: 'NAO_REALIZADO' };

export type GatewayBRefundWire = Estorno | Devolucao;
export type GatewayBRefund = SimRefund<GatewayBRefundWire>;
export const isDevolucao = (wire: GatewayBRefundWire): wire is Devolucao => 'rtrId' in wire;

export const day = (date: Date) => date.toISOString().slice(0, 10);
export const interval = (ciclo: Assinatura['ciclo']): SubscriptionInterval => (ciclo === 'MENSAL' ? 'monthly' : 'yearly');

export class GatewayBState {
  readonly cobrancas = new Map<string, Cobranca>();
  readonly assinaturas = new Map<string, Assinatura>();
  /** The resource each `referenciaExterna` created (the gateway dedupes on it). */
  readonly porReferencia = new Map<string, string>();
  /** A Pix charge's code and image, made once at creation and served by its own endpoint. */
  readonly pixCodes = new Map<string, { text: string; pngBase64: string }>();
  /** What the hosted page shows beyond the wire object. */
  readonly pageInfo = new Map<string, { description: string | null; customerName: string }>();
  readonly created = { payments: 0, subscriptions: 0, subscriptionCharges: 0, refunds: 0 };
  /** Estornos (`est_…`) and Pix devoluções (as `<endToEndId>/<id>`; their id and rtrId as aliases). */
  readonly refunds = new RefundLedger<GatewayBRefundWire>();
  /** Assinaturas whose customer already registered a card at the hosted page. */
  readonly checkoutDone = new Set<string>();
  /** Where this run listens, for the payment links it hands out. */
  baseUrl = '';
  readonly webhooks: WebhookDispatcher;

  constructor(
    readonly credentials: GatewayBCredentials,
    webhookUrl: string | null,
  ) {
    this.webhooks = new WebhookDispatcher(webhookUrl, () => ({ [TOKEN_HEADER.toLowerCase()]: credentials.webhookToken }));
  }

  notify(evento: string, recursoId: string): void {
    this.webhooks.emit(evento, { eventoId: newId('evb_'), evento, recursoId, criadoEm: new Date().toISOString() });
  }

  cobranca(ref: string): Cobranca {
    return found(this.cobrancas, ref, 'cobrança');
  }

  assinatura(ref: string): Assinatura {
    return found(this.assinaturas, ref, 'assinatura');
  }

  setCobranca(cobranca: Cobranca, status: string, changes: Partial<Cobranca> = {}): void {
    Object.assign(cobranca, changes, { status });
    // A cobrança paid says when (a status forced by a control: now).
    if (PAID_COBRANCA.includes(status)) cobranca.pagoEm ??= new Date().toISOString();
    // A Pix received has the end-to-end id of its transaction, which its devoluções name.
    if (cobranca.formaPagamento === 'PIX' && status === 'RECEBIDO' && !cobranca.endToEndId) cobranca.endToEndId = pixTransactionId('E', SANDBOX_ISPB);
    this.notify('COBRANCA_ATUALIZADA', cobranca.id);
  }

  cobrancaByEndToEndId(endToEndId: string): Cobranca | undefined {
    for (const cobranca of this.cobrancas.values()) if (cobranca.endToEndId === endToEndId) return cobranca;
    return undefined;
  }

  static refundStatus(wire: GatewayBRefundWire, state: SimRefundState): string {
    return isDevolucao(wire) ? DEVOLUCAO_STATUS[state] : ESTORNO_STATUS[state];
  }

  /** Settles or fails a refund, and sends the thin notification naming it. */
  moveRefund(refund: GatewayBRefund, state: SimRefundState, reason: string | null = null): void {
    refund.state = state;
    this.setRefundWire(refund, GatewayBState.refundStatus(refund.wire, state), reason);
  }

  /** Writes a raw status (known or not) and notifies: `ESTORNO_ATUALIZADO`, or `DEVOLUCAO_ATUALIZADA` with the endToEndId. */
  setRefundWire(refund: GatewayBRefund, rawStatus: string, reason: string | null = null): void {
    const wire = refund.wire;
    wire.status = rawStatus;
    const at = refund.state === 'succeeded' ? new Date().toISOString() : null;
    if (isDevolucao(wire)) {
      wire.motivo = reason;
      wire.horario.liquidacao = at;
      this.webhooks.emit('DEVOLUCAO_ATUALIZADA', { eventoId: newId('evb_'), evento: 'DEVOLUCAO_ATUALIZADA', recursoId: wire.id, endToEndId: wire.endToEndId, criadoEm: new Date().toISOString() });
    } else {
      wire.motivoFalha = reason;
      wire.estornadoEm = at;
      this.notify('ESTORNO_ATUALIZADO', wire.id);
    }
  }

  setAssinatura(assinatura: Assinatura, changes: Partial<Assinatura>): void {
    const before = assinatura.status;
    Object.assign(assinatura, changes);
    if (before !== assinatura.status) this.notify('ASSINATURA_ATUALIZADA', assinatura.id);
  }

  chargeCycle(assinatura: Assinatura, status: 'CONFIRMADO' | 'RECUSADO'): Cobranca {
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
      endToEndId: null,
      pagoEm: status === 'CONFIRMADO' ? new Date().toISOString() : null,
      criadoEm: new Date().toISOString(),
    };
    this.cobrancas.set(cobranca.id, cobranca);
    this.created.subscriptionCharges += 1;
    this.notify('COBRANCA_ATUALIZADA', cobranca.id);
    return cobranca;
  }

  /** Ends a subscription; its unpaid charges are canceled with it. */
  endAssinatura(assinatura: Assinatura, status: 'CANCELADA' | 'ENCERRADA'): void {
    this.setAssinatura(assinatura, { status, canceladaEm: new Date().toISOString(), proximoVencimento: null });
    for (const cobranca of this.cobrancas.values()) {
      if (cobranca.assinatura === assinatura.id && OPEN_COBRANCA.includes(cobranca.status)) this.setCobranca(cobranca, 'CANCELADO');
    }
  }
}
