/** Inputs of organizations, projects and environments. Browser-safe (zod and the contract only). */
import { z } from 'zod';
import { BILLING_STATUSES, ENVIRONMENT_KINDS } from '../enums';
import { Name, RecordId } from '../schemas/text';

/** A monthly quota: stored in a 32-bit column, so anything larger is refused at the field, not by the database. */
const MonthlyTxLimit = z.int().min(0).max(2_147_483_647);

export const CreateOrganizationInput = z.strictObject({
  name: Name,
  billingStatus: z.enum(BILLING_STATUSES).default('active'),
  monthlyTxLimit: MonthlyTxLimit.nullable().default(null),
});

export const SetBillingInput = z.strictObject({
  organizationId: RecordId,
  billingStatus: z.enum(BILLING_STATUSES).optional(),
  /** null removes the quota. */
  monthlyTxLimit: MonthlyTxLimit.nullable().optional(),
});

export const OrganizationIdInput = z.strictObject({ organizationId: RecordId });

/** `withEnvironments` also creates the project's sandbox and production environments (what the dashboard does). */
export const CreateProjectInput = z.strictObject({ organizationId: RecordId, name: Name, withEnvironments: z.boolean().default(false) });
export const ListProjectsInput = z.strictObject({ organizationId: RecordId.optional() }).default({});

export const CreateEnvironmentInput = z.strictObject({ projectId: RecordId, kind: z.enum(ENVIRONMENT_KINDS) });
export const ListEnvironmentsInput = z.strictObject({ projectId: RecordId.optional() }).default({});
