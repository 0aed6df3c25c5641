/**
 * Organizations (operators create them and set their billing), their
 * projects and environments. Members see only their organizations'; owners
 * create projects and environments.
 */
import { Environment, Project } from '../db/entities';
import { createEnvironment, createOrganization, createProject, listOrganizations, organizationUsage, setBilling } from '../domain/tenancy';
import { organizationAccess, projectAccess, requireOperator, visibleOrganizations } from './access';
import { organizationBefore } from '../domain/audit/snapshots';
import { audited } from './audited';
import {
  CreateEnvironmentInput,
  CreateOrganizationInput,
  CreateProjectInput,
  ListEnvironmentsInput,
  ListProjectsInput,
  OrganizationIdInput,
  SetBillingInput,
} from '../contract/operator/tenancy';
import { operatorProcedure, operatorT as t, type OperatorContext } from './procedure';

/**
 * Where simulators run (the embedded demo, development), a new sandbox
 * environment is wired to simulators of its own at once (sandbox/fleet.ts),
 * so its first test payment works. The environment exists either way: a
 * wiring that fails is logged, and the dashboard then says what to configure.
 */
async function wireSandbox(ctx: OperatorContext, environment: { id: string; kind: string }): Promise<void> {
  const sandbox = ctx.services.sandbox;
  if (environment.kind !== 'sandbox' || !sandbox?.wireEnvironment) return;
  try {
    await sandbox.wireEnvironment(environment.id);
  } catch (error) {
    ctx.log.warn({ err: error, environmentId: environment.id }, 'new sandbox environment not wired to the simulators');
  }
}

export const organizationsRouter = t.router({
  create: operatorProcedure.input(CreateOrganizationInput).mutation(({ ctx, input }) => {
    requireOperator(ctx.actor);
    return audited(ctx, async (em, audit) => {
      const after = await createOrganization(em, input);
      audit({ action: 'organization.created', organizationId: after.id, target: { type: 'organization', id: after.id }, before: null, after });
      return after;
    });
  }),

  /** Every organization for an operator; a member's own, each with their `role` in it. */
  list: operatorProcedure.query(async ({ ctx }) => {
    const organizations = await listOrganizations(ctx.em, visibleOrganizations(ctx.actor));
    if (ctx.actor.kind !== 'member') return organizations;
    const roles = ctx.actor.roles;
    return organizations.map((organization) => ({ ...organization, role: roles.get(organization.id)! }));
  }),

  setBilling: operatorProcedure.input(SetBillingInput).mutation(({ ctx, input }) => {
    requireOperator(ctx.actor);
    return audited(ctx, async (em, audit) => {
      const before = await organizationBefore(em, input.organizationId);
      const after = await setBilling(em, input);
      audit({ action: 'organization.billing_changed', organizationId: after.id, target: { type: 'organization', id: after.id }, before, after });
      return after;
    });
  }),

  usage: operatorProcedure.input(OrganizationIdInput).query(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'read');
    return organizationUsage(ctx.em, input.organizationId, ctx.services.now());
  }),
});

export const projectsRouter = t.router({
  /** With `withEnvironments`, the project's sandbox and production environments come with it (in `environments`). */
  create: operatorProcedure.input(CreateProjectInput).mutation(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'own');
    // One transaction: a project never ends up with one environment of the two.
    const created = await audited(ctx, async (tx, audit) => {
      const project = await createProject(tx, input);
      audit({ action: 'project.created', organizationId: input.organizationId, target: { type: 'project', id: project.id }, before: null, after: project });
      if (!input.withEnvironments) return { ...project, environments: undefined };
      const environments = [];
      for (const kind of ['sandbox', 'production'] as const) environments.push(await createEnvironment(tx, { projectId: project.id, kind }));
      for (const environment of environments) {
        audit({ action: 'environment.created', organizationId: input.organizationId, environmentId: environment.id, target: { type: 'environment', id: environment.id }, before: null, after: environment });
      }
      return { ...project, environments };
    });
    if (!created.environments) return { id: created.id, organizationId: created.organizationId, name: created.name };
    for (const environment of created.environments) await wireSandbox(ctx, environment);
    return created;
  }),

  /** The projects the caller sees, or one organization's (which must exist and be visible: otherwise not found). */
  list: operatorProcedure.input(ListProjectsInput).query(async ({ ctx, input }) => {
    if (input.organizationId) {
      await organizationAccess(ctx, input.organizationId, 'read');
    }
    const visible = visibleOrganizations(ctx.actor);
    const where = input.organizationId ? { organization: input.organizationId } : visible ? { organization: visible } : {};
    const projects = await ctx.em.find(Project, where, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return projects.map((project) => ({ id: project.id, organizationId: project.organization.id, name: project.name, createdAt: project.createdAt.toISOString() }));
  }),
});

export const environmentsRouter = t.router({
  create: operatorProcedure.input(CreateEnvironmentInput).mutation(async ({ ctx, input }) => {
    const project = await projectAccess(ctx, input.projectId, 'own');
    const environment = await audited(ctx, async (em, audit) => {
      const after = await createEnvironment(em, input);
      audit({ action: 'environment.created', organizationId: project.organization.id, environmentId: after.id, target: { type: 'environment', id: after.id }, before: null, after });
      return after;
    });
    await wireSandbox(ctx, environment);
    return environment;
  }),

  /** The environments the caller sees, or one project's (which must exist and be visible). */
  list: operatorProcedure.input(ListEnvironmentsInput).query(async ({ ctx, input }) => {
    if (input.projectId) await projectAccess(ctx, input.projectId, 'read');
    const visible = visibleOrganizations(ctx.actor);
    const where = input.projectId ? { project: input.projectId } : visible ? { project: { organization: visible } } : {};
    const environments = await ctx.em.find(Environment, where, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return environments.map((environment) => ({ id: environment.id, projectId: environment.project.id, kind: environment.kind, createdAt: environment.createdAt.toISOString() }));
  }),
});

