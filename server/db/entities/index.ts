import { ApiKeySchema } from './api-key';
import { GatewayAccountSchema } from './gateway-account';
import { InboundWebhookSchema } from './inbound-webhook';
import { OutboxEventSchema } from './outbox-event';
import { RoutingRuleSchema } from './routing-rule';
import { EnvironmentSchema } from './environment';
import { MonthlyUsageSchema } from './monthly-usage';
import { TransactionUsageSchema } from './transaction-usage';
import { QuotaCounterSchema } from './quota-counter';
import { QuotaClaimSchema } from './quota-claim';
import { OrganizationSchema } from './organization';
import { ProjectSchema } from './project';
import { WebhookAttemptSchema } from './webhook-attempt';
import { WebhookDeliverySchema } from './webhook-delivery';
import { WebhookEndpointSchema } from './webhook-endpoint';
import { UserSchema } from './user';
import { MembershipSchema } from './membership';
import { DashboardSessionSchema } from './dashboard-session';
import { InvitationSchema } from './invitation';
import { PasswordResetSchema } from './password-reset';
import { AuditEntrySchema } from './audit-entry';

export { ApiKey } from './api-key';
export { Environment } from './environment';
export { GatewayAccount } from './gateway-account';
export { InboundWebhook } from './inbound-webhook';
export { OutboxEvent } from './outbox-event';
export { RoutingRule } from './routing-rule';
export { MonthlyUsage } from './monthly-usage';
export { TransactionUsage } from './transaction-usage';
export { QuotaCounter } from './quota-counter';
export { QuotaClaim } from './quota-claim';
export { Organization } from './organization';
export { Project } from './project';
export { WebhookAttempt } from './webhook-attempt';
export { WebhookDelivery } from './webhook-delivery';
export { WebhookEndpoint } from './webhook-endpoint';
export { User } from './user';
export { Membership } from './membership';
export { DashboardSession } from './dashboard-session';
export { Invitation } from './invitation';
export { PasswordReset } from './password-reset';
export { AuditEntry } from './audit-entry';

/**
 * The tables that only hold records. The aggregates with rules of their own
 * (payments, subscriptions) define their entities in domain/, and
 * domain/entities.ts joins both lists for the ORM.
 */
export const RECORD_ENTITIES = [
  OrganizationSchema,
  ProjectSchema,
  EnvironmentSchema,
  ApiKeySchema,
  MonthlyUsageSchema,
  TransactionUsageSchema,
  QuotaCounterSchema,
  QuotaClaimSchema,
  GatewayAccountSchema,
  RoutingRuleSchema,
  OutboxEventSchema,
  InboundWebhookSchema,
  WebhookEndpointSchema,
  WebhookDeliverySchema,
  WebhookAttemptSchema,
  UserSchema,
  MembershipSchema,
  DashboardSessionSchema,
  InvitationSchema,
  PasswordResetSchema,
  AuditEntrySchema,
];
