/**
 * What a gateway needs in a create request beyond the contract's own rules
 * (installment ceilings, a phone number, a plan). Checked before the gateway
 * is called, so the merchant gets a precise `invalid_input` instead of the
 * gateway's refusal.
 */
import type { GatewayName } from '../contract/enums';
import { Refusal } from './refusal';
import { gatewayCapabilities, type GatewayAdapter, type GatewayPlan } from '../gateways';
import { raises } from './raises';

export const GATEWAY_REQUIREMENTS = raises(['invalid_input']);

function requirePhone(gateway: GatewayName, phone: string | null | undefined, purpose: string): void {
  if (!phone) throw new Refusal('invalid_input', { issues: [{ path: ['customer', 'phone'], message: `is required for ${purpose} on ${gateway}` }] });
}

export function assertPaymentFitsGateway(gateway: GatewayName, request: { method: string; installments: number; phone: string | null | undefined }): void {
  if (request.method !== 'card') return;
  const capabilities = gatewayCapabilities[gateway];
  if (request.installments > capabilities.maxInstallments) {
    throw new Refusal('invalid_input', {
      issues: [{ path: ['card', 'installments'], message: `${gateway} allows at most ${capabilities.maxInstallments} installments` }],
    });
  }
  if (capabilities.phoneRequiredForCard) requirePhone(gateway, request.phone, 'card payments');
}

/** The plan the gateway needs (null where the gateway takes amount and interval directly). */
export function subscriptionPlanFor(gateway: GatewayName, request: { phone: string | null | undefined; planId: string | undefined }): string | null {
  const capabilities = gatewayCapabilities[gateway];
  if (capabilities.phoneRequiredForSubscription) requirePhone(gateway, request.phone, 'subscriptions');
  if (!capabilities.planIdRequired) return null;
  if (!request.planId) {
    throw new Refusal('invalid_input', { issues: [{ path: ['gateway', gateway, 'planId'], message: `is required when subscriptions route to ${gateway}` }] });
  }
  return request.planId;
}

/**
 * On gateways whose subscriptions follow a plan, the plan fixes what the
 * customer is charged and the trial they get: an unknown plan, or an amount,
 * interval or trial other than the plan's, is refused before anything is
 * created, so the stored subscription always says what is really charged.
 * A trial left out (null) is the plan's. Answers the plan.
 */
export async function assertMatchesPlan(adapter: GatewayAdapter, planId: string, request: { amount: number; interval: string; trialDays: number | null }): Promise<GatewayPlan> {
  const plan = adapter.getPlan ? await adapter.getPlan(planId) : null;
  const gateway = adapter.name;
  if (!plan) {
    throw new Refusal('invalid_input', { issues: [{ path: ['gateway', gateway, 'planId'], message: `${gateway} has no plan ${planId}` }] });
  }
  const issues = [];
  if (plan.amount !== request.amount) {
    issues.push({ path: ['amount'], message: `plan ${plan.planId} charges ${plan.amount} (cents); send that amount or choose another plan` });
  }
  if (plan.interval !== request.interval) {
    issues.push({ path: ['interval'], message: `plan ${plan.planId} is ${plan.interval}; send that interval or choose another plan` });
  }
  if (request.trialDays !== null && plan.trialDays !== request.trialDays) {
    const trial = plan.trialDays > 0 ? `a ${plan.trialDays}-day trial (trialDays ${plan.trialDays})` : 'no trial (trialDays 0)';
    issues.push({ path: ['trialDays'], message: `plan ${plan.planId} has ${trial}; send that, leave trialDays out, or choose another plan` });
  }
  if (issues.length) throw new Refusal('invalid_input', { issues });
  return plan;
}
