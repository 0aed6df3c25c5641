import { z } from 'zod';
import { TRPCError } from '@trpc/server';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { BILLING_STATUSES, ENVIRONMENT_KINDS } from '../contract/enums';
import { Environment, Organization, Project } from '../db/entities';
import { transactionsUsed, usagePeriod } from '../domain/billing';
import { adminProcedure, adminT as t, notFound } from './procedure';

const organizationView = (o: Organization) => ({
  id: o.id,
  name: o.name,
  billingStatus: o.billingStatus,
  monthlyTxLimit: o.monthlyTxLimit ?? null,
  createdAt: o.createdAt.toISOString(),
});

export const organizationsRouter = t.router({
  create: adminProcedure
    .input(
      z.object({
        name: z.string().min(1).max(255),
        billingStatus: z.enum(BILLING_STATUSES).default('active'),
        monthlyTxLimit: z.int().min(0).nullable().default(null),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const organization = ctx.em.create(Organization, input);
      await ctx.em.flush();
      return organizationView(organization);
    }),

  list: adminProcedure.query(async ({ ctx }) => (await ctx.em.find(Organization, {}, { orderBy: { createdAt: 'asc' } })).map(organizationView)),

  setBilling: adminProcedure
    .input(
      z.object({
        organizationId: z.string(),
        billingStatus: z.enum(BILLING_STATUSES).optional(),
        /** null removes the quota. */
        monthlyTxLimit: z.int().min(0).nullable().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const organization = await ctx.em.findOne(Organization, { id: input.organizationId });
      if (!organization) throw notFound('Organization', input.organizationId);
      if (input.billingStatus !== undefined) organization.billingStatus = input.billingStatus;
      if (input.monthlyTxLimit !== undefined) organization.monthlyTxLimit = input.monthlyTxLimit;
      await ctx.em.flush();
      return organizationView(organization);
    }),

  usage: adminProcedure.input(z.object({ organizationId: z.string() })).query(async ({ ctx, input }) => {
    const organization = await ctx.em.findOne(Organization, { id: input.organizationId });
    if (!organization) throw notFound('Organization', input.organizationId);
    const now = ctx.services.now();
    return { period: usagePeriod(now), used: await transactionsUsed(ctx.em, organization.id, now), limit: organization.monthlyTxLimit ?? null };
  }),
});

export const projectsRouter = t.router({
  create: adminProcedure
    .input(z.object({ organizationId: z.string(), name: z.string().min(1).max(255) }))
    .mutation(async ({ ctx, input }) => {
      const organization = await ctx.em.findOne(Organization, { id: input.organizationId });
      if (!organization) throw notFound('Organization', input.organizationId);
      const project = ctx.em.create(Project, { organization, name: input.name });
      await ctx.em.flush();
      return { id: project.id, organizationId: organization.id, name: project.name };
    }),
});

export const environmentsRouter = t.router({
  create: adminProcedure
    .input(z.object({ projectId: z.string(), kind: z.enum(ENVIRONMENT_KINDS) }))
    .mutation(async ({ ctx, input }) => {
      const project = await ctx.em.findOne(Project, { id: input.projectId });
      if (!project) throw notFound('Project', input.projectId);
      const environment = ctx.em.create(Environment, { project, kind: input.kind });
      try {
        await ctx.em.flush();
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) {
          throw new TRPCError({ code: 'CONFLICT', message: `Project ${project.id} already has a ${input.kind} environment.` });
        }
        throw error;
      }
      return { id: environment.id, projectId: project.id, kind: environment.kind };
    }),
});
