/** gateway_b's JSON objects as PROTOCOL.md documents them; the adapter parses answers with these. */
import { z } from 'zod';
import { reaisToCents } from './money';

export const credentialsSchema = z.object({
  apiKey: z.string().min(8),
  webhookToken: z.string().min(16),
});
export type GatewayBCredentials = z.infer<typeof credentialsSchema>;

/** Decimal reais on the wire, integer cents once parsed. */
const valor = z.string().transform((text, ctx) => {
  const parsed = reaisToCents(text);
  if (parsed === null) {
    ctx.addIssue({ code: 'custom', message: 'valor must be <reais>.<centavos>' });
    return z.NEVER;
  }
  return parsed;
});
const dateOnly = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const cobrancaSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  valor,
  formaPagamento: z.enum(['PIX', 'CARTAO']),
  parcelas: z.number().int(),
  referenciaExterna: z.string().nullable(),
  linkPagamento: z.string().nullable(),
  assinatura: z.string().nullable(),
  cartao: z.object({ bandeira: z.string(), ultimosDigitos: z.string() }).nullable(),
  /** Where the hosted page sends the customer back; null when the create had none. */
  urlRetorno: z.string().nullable().default(null),
  /** A Pix cobrança's end-to-end id once RECEBIDO (what a devolução names); null before, and for cards. */
  endToEndId: z.string().nullable().default(null),
  /** When it was paid at the gateway (a Pix's settlement, a card's confirmation), ISO; null before. */
  pagoEm: z.string().nullable().default(null),
  criadoEm: z.string(),
});
/** As sent (valor a string); parsing turns valor into cents. */
export type Cobranca = z.input<typeof cobrancaSchema>;

/** A card charge's refund (`est_…`). */
export const estornoSchema = z.object({
  id: z.string().min(1),
  cobranca: z.string().min(1),
  valor,
  status: z.string().min(1),
  referenciaExterna: z.string().nullable(),
  motivo: z.string().nullable(),
  /** Why the estorno failed, once it did. */
  motivoFalha: z.string().nullable(),
  criadoEm: z.string(),
  estornadoEm: z.string().nullable(),
});
export type Estorno = z.input<typeof estornoSchema>;

/** A Pix devolução as the Pix API has it, named by the cobrança's endToEndId and the id the client chose. */
export const devolucaoSchema = z.object({
  id: z.string().min(1),
  rtrId: z.string().min(1),
  endToEndId: z.string().min(1),
  cobranca: z.string().min(1),
  valor,
  status: z.string().min(1),
  descricao: z.string().nullable(),
  /** The SPI's reason when NAO_REALIZADO. */
  motivo: z.string().nullable(),
  horario: z.object({ solicitacao: z.string(), liquidacao: z.string().nullable() }),
});
export type Devolucao = z.input<typeof devolucaoSchema>;

export const qrCodeSchema = z.object({
  imagemBase64: z.string().min(1),
  copiaECola: z.string().min(1),
  expiraEm: z.string(),
});
export type PixQrCode = z.infer<typeof qrCodeSchema>;

export const assinaturaSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  valor,
  ciclo: z.enum(['MENSAL', 'ANUAL']),
  diasTeste: z.number().int(),
  fimTeste: dateOnly.nullable(),
  proximoVencimento: dateOnly.nullable(),
  cancelarNoFimDoCiclo: z.boolean(),
  canceladaEm: z.string().nullable(),
  linkPagamento: z.string().nullable(),
  referenciaExterna: z.string().nullable(),
  urlRetorno: z.string().nullable().default(null),
  criadoEm: z.string(),
});
export type Assinatura = z.input<typeof assinaturaSchema>;

export const notificacaoSchema = z.object({
  eventoId: z.string().min(1),
  evento: z.string().min(1),
  recursoId: z.string().min(1),
  /** DEVOLUCAO_ATUALIZADA: the Pix the devolução (recursoId) belongs to, which its URL needs. */
  endToEndId: z.string().min(1).optional(),
  criadoEm: z.string(),
});
export type Notificacao = z.infer<typeof notificacaoSchema>;

export const errosSchema = z.object({
  erros: z.array(z.object({ codigo: z.string(), descricao: z.string(), campo: z.string().optional() })),
});

export const TOKEN_HEADER = 'X-Webhook-Token';

