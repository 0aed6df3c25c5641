/**
 * Organizations (with their platform billing state and quota), their
 * projects, and each project's sandbox and production environments.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { BillingStatus, EnvironmentKind } from '../contract/enums';
import { Environment, Organization, Project } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { forgetQuotaCounters, transactionsUsed, usagePeriod } from './quota';
import { notFound, operatorRefusal } from './refusal';

export const organizationView = (o: Organization) => ({
  id: o.id,
  name: o.name,
  billingStatus: o.billingStatus,
  monthlyTxLimit: o.monthlyTxLimit ?? null,
  createdAt: o.createdAt.toISOString(),
});

export async function createOrganization(em: EntityManager, input: { name: string; billingStatus: BillingStatus; monthlyTxLimit: number | null }) {
  const organization = em.create(Organization, input);
  await em.flush();
  return organizationView(organization);
}

/** Which organizations a list may show, as a condition on their ids: only these, all but these; no condition is all. */
export type OrganizationCondition = { $in: string[] } | { $nin: string[] };

/** Every organization, or those `visible` admits. */
export async function listOrganizations(em: EntityManager, visible?: OrganizationCondition) {
  return (await em.find(Organization, visible ? { id: visible } : {}, { orderBy: { createdAt: 'asc' } })).map(organizationView);
}

async function loadOrganization(em: EntityManager, organizationId: string): Promise<Organization> {
  const organization = await em.findOne(Organization, { id: organizationId });
  if (!organization) throw notFound('Organization', organizationId);
  return organization;
}

/** `monthlyTxLimit` null removes the quota; undefined leaves a field as it is. */
export async function setBilling(em: EntityManager, input: { organizationId: string; billingStatus?: BillingStatus; monthlyTxLimit?: number | null }) {
  const organization = await loadOrganization(em, input.organizationId);
  if (input.billingStatus !== undefined) organization.billingStatus = input.billingStatus;
  // A counter stops counting while there is no limit: a new limit starts from the exact count.
  const limitSetAgain = input.monthlyTxLimit != null && organization.monthlyTxLimit == null;
  if (input.monthlyTxLimit !== undefined) organization.monthlyTxLimit = input.monthlyTxLimit;
  await em.flush();
  if (limitSetAgain) await forgetQuotaCounters(em, organization.id);
  return organizationView(organization);
}

export async function organizationUsage(em: EntityManager, organizationId: string, now: Date) {
  const organization = await loadOrganization(em, organizationId);
  return { period: usagePeriod(now), used: await transactionsUsed(em, organization.id, usagePeriod(now)), limit: organization.monthlyTxLimit ?? null };
}

export async function createProject(em: EntityManager, input: { organizationId: string; name: string }) {
  const organization = await loadOrganization(em, input.organizationId);
  const project = em.create(Project, { organization, name: input.name });
  await em.flush();
  return { id: project.id, organizationId: organization.id, name: project.name };
}

/** One environment of each kind per project. */
export async function createEnvironment(em: EntityManager, input: { projectId: string; kind: EnvironmentKind }) {
  const project = await em.findOne(Project, { id: input.projectId });
  if (!project) throw notFound('Project', input.projectId);
  const environment = em.create(Environment, { project, kind: input.kind });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw operatorRefusal('conflict', `Project ${project.id} already has a ${input.kind} environment.`);
    throw error;
  }
  return { id: environment.id, projectId: project.id, kind: environment.kind };
}

/** The environment an operator names, or not found. */
export async function loadEnvironment(em: EntityManager, environmentId: string): Promise<Environment> {
  const environment = await em.findOne(Environment, { id: environmentId });
  if (!environment) throw notFound('Environment', environmentId);
  return environment;
}
