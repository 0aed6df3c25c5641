import { z } from 'zod';
import { Name, RecordId } from '../contract/schemas/text';
import { BILLING_STATUSES, ENVIRONMENT_KINDS } from '../contract/enums';
import { Environment, Organization, Project } from '../db/entities';
import { notFound } from '../domain/operator-errors';
import { createEnvironment, createOrganization, createProject, listOrganizations, organizationUsage, setBilling } from '../domain/tenancy';
import { adminProcedure, adminT as t } from './procedure';

export const organizationsRouter = t.router({
  create: adminProcedure
    .input(
      z.strictObject({
        name: Name,
        billingStatus: z.enum(BILLING_STATUSES).default('active'),
        monthlyTxLimit: z.int().min(0).nullable().default(null),
      }),
    )
    .mutation(({ ctx, input }) => createOrganization(ctx.em, input)),

  list: adminProcedure.query(({ ctx }) => listOrganizations(ctx.em)),

  setBilling: adminProcedure
    .input(
      z.strictObject({
        organizationId: RecordId,
        billingStatus: z.enum(BILLING_STATUSES).optional(),
        /** null removes the quota. */
        monthlyTxLimit: z.int().min(0).nullable().optional(),
      }),
    )
    .mutation(({ ctx, input }) => setBilling(ctx.em, input)),

  usage: adminProcedure.input(z.strictObject({ organizationId: RecordId })).query(({ ctx, input }) => organizationUsage(ctx.em, input.organizationId, ctx.services.now())),
});

export const projectsRouter = t.router({
  create: adminProcedure
    .input(z.strictObject({ organizationId: RecordId, name: Name }))
    .mutation(({ ctx, input }) => createProject(ctx.em, input)),

  /** Every project, or one organization's (which must exist: an unknown id is not an empty list). */
  list: adminProcedure.input(z.strictObject({ organizationId: RecordId.optional() }).default({})).query(async ({ ctx, input }) => {
    if (input.organizationId && !(await ctx.em.findOne(Organization, { id: input.organizationId }))) throw notFound('Organization', input.organizationId);
    const projects = await ctx.em.find(Project, input.organizationId ? { organization: input.organizationId } : {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return projects.map((project) => ({ id: project.id, organizationId: project.organization.id, name: project.name, createdAt: project.createdAt.toISOString() }));
  }),
});

export const environmentsRouter = t.router({
  create: adminProcedure
    .input(z.strictObject({ projectId: RecordId, kind: z.enum(ENVIRONMENT_KINDS) }))
    .mutation(({ ctx, input }) => createEnvironment(ctx.em, input)),

  /** Every environment, or one project's (which must exist). */
  list: adminProcedure.input(z.strictObject({ projectId: RecordId.optional() }).default({})).query(async ({ ctx, input }) => {
    if (input.projectId && !(await ctx.em.findOne(Project, { id: input.projectId }))) throw notFound('Project', input.projectId);
    const environments = await ctx.em.find(Environment, input.projectId ? { project: input.projectId } : {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return environments.map((environment) => ({ id: environment.id, projectId: environment.project.id, kind: environment.kind, createdAt: environment.createdAt.toISOString() }));
  }),
});
