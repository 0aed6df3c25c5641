/**
 * Who calls an internal procedure, and what they may do.
 *
 * The internal API has two kinds of caller. An operator runs the platform:
 * the admin token (the CLI, the demo seed) or a dashboard user marked as a
 * platform operator; an operator may do anything. A member is a dashboard
 * user acting inside the organizations they belong to, with one role in
 * each: a viewer reads, a developer also changes keys, endpoints, routing,
 * gateways, resends deliveries and drives the sandbox simulators, an owner
 * also manages members.
 *
 * Every procedure that touches an organization's data asks here before it
 * reads or changes anything. Data of an organization the member does not
 * belong to is refused exactly as if it did not exist (the same `not_found`
 * and message), so ids cannot be probed; a member whose role is too low is
 * refused with `forbidden`.
 */
import { Environment, Organization, Project } from '../db/entities';
import type { EntityManager } from '../db/orm';
import type { OrganizationCondition } from '../domain/tenancy';
import { notFound, operatorRefusal, Refusal } from '../domain/refusal';
import { MEMBER_ROLES, type MemberRole } from '../contract/people';

export { MEMBER_ROLES, type MemberRole };

/** What a procedure needs of its caller in the organization it touches. */
export type Need = 'read' | 'develop' | 'own';

export type Actor =
  /**
   * The admin token (`userId` null) or a dashboard user who is a platform operator: then the organizations that
   * require a second factor their session has not proven, and whether it proved one.
   */
  | { kind: 'operator'; userId: string | null; secondFactorMissing?: ReadonlySet<string>; secondFactorProven?: boolean }
  /** A dashboard user, with their role in each organization they belong to. */
  | { kind: 'member'; userId: string; roles: ReadonlyMap<string, MemberRole>; secondFactorMissing?: ReadonlySet<string> };

export const OPERATOR: Actor = { kind: 'operator', userId: null };

const RANK: Record<MemberRole, number> = { viewer: 0, developer: 1, owner: 2 };
const NEEDED: Record<Need, MemberRole> = { read: 'viewer', develop: 'developer', own: 'owner' };

/**
 * Checks the actor may act on `organizationId` as `need` says. `missing` is
 * the error the caller would raise if the record did not exist: it is what a
 * non-member gets.
 */
export function authorize(actor: Actor, organizationId: string, need: Need, missing: Refusal): void {
  if (actor.kind === 'operator') {
    // An organization's requirement holds for the platform's people reading it as for its members.
    if (actor.secondFactorMissing?.has(organizationId)) throw secondFactorRequired();
    return;
  }
  const role = actor.roles.get(organizationId);
  if (!role) throw missing;
  if (RANK[role] < RANK[NEEDED[need]]) {
    throw operatorRefusal('forbidden', `Your role in this organization (${role}) cannot do this; it needs ${NEEDED[need]} or above.`);
  }
  if (actor.secondFactorMissing?.has(organizationId)) throw secondFactorRequired();
}

/** A member of an organization that requires a second factor, in a session that has not proven one. */
export const secondFactorRequired = () =>
  operatorRefusal('second_factor_required', 'This organization requires a second factor: set one up on the Security page, or log in again with it.');

/** The caller's own log-in, sessions and second factor: every `auth.*` procedure but an organization's requirement. */
const OWN_ACCOUNT = /^auth\.(?!setOrganizationSecondFactor$)/;

/**
 * In production a platform operator's dashboard session acts only with a
 * proven second factor: it can do anything, so a stolen password alone must
 * not be enough. Their own account's procedures (OWN_ACCOUNT) stay open, so they
 * can enrol. The admin token (the CLI) is not a session and is not asked.
 */
export function requireOperatorSecondFactor(actor: Actor, production: boolean, procedure: string): void {
  if (!production || actor.kind !== 'operator' || actor.secondFactorProven !== false || OWN_ACCOUNT.test(procedure)) return;
  throw operatorRefusal(
    'second_factor_required',
    'Platform operators need a second factor in production: set one up on the Security page (Account, Security), or log in again with your code.',
  );
}

/** For what only a platform operator does: organizations, billing state and quotas. */
export function requireOperator(actor: Actor): void {
  if (actor.kind !== 'operator') throw operatorRefusal('forbidden', 'Only a platform operator can do this.');
}

/**
 * The organizations whose records a list across organizations shows: a member's own, every one for an operator but
 * those requiring a second factor the operator's session has not proven (the requirement holds in lists too, not
 * only when one organization is named), or all (undefined).
 */
export function visibleOrganizations(actor: Actor): OrganizationCondition | undefined {
  if (actor.kind === 'member') return { $in: [...actor.roles.keys()].filter((id) => !actor.secondFactorMissing?.has(id)) };
  return actor.secondFactorMissing?.size ? { $nin: [...actor.secondFactorMissing] } : undefined;
}

/** The id of the organization an environment belongs to. */
export const organizationOf = (environment: Environment): string => environment.project.organization.id;

interface Scoped {
  actor: Actor;
  em: EntityManager;
}

export async function organizationAccess(ctx: Scoped, organizationId: string, need: Need): Promise<Organization> {
  const missing = notFound('Organization', organizationId);
  authorize(ctx.actor, organizationId, need, missing);
  const organization = await ctx.em.findOne(Organization, { id: organizationId });
  if (!organization) throw missing;
  return organization;
}

export async function projectAccess(ctx: Scoped, projectId: string, need: Need): Promise<Project> {
  const missing = notFound('Project', projectId);
  const project = await ctx.em.findOne(Project, { id: projectId });
  if (!project) throw missing;
  authorize(ctx.actor, project.organization.id, need, missing);
  return project;
}

export async function environmentAccess(ctx: Scoped, environmentId: string, need: Need): Promise<Environment> {
  const missing = notFound('Environment', environmentId);
  const environment = await ctx.em.findOne(Environment, { id: environmentId }, { populate: ['project'] });
  if (!environment) throw missing;
  authorize(ctx.actor, organizationOf(environment), need, missing);
  return environment;
}

/**
 * For a record that belongs to an environment (a key, an endpoint, an
 * account, a payment…): the caller loads it, then asks with the record's
 * environment and the error its absence would raise.
 */
export async function recordAccess(ctx: Scoped, environmentId: string, need: Need, missing: Refusal): Promise<void> {
  const environment = await ctx.em.findOne(Environment, { id: environmentId }, { populate: ['project'] });
  if (!environment) throw missing;
  authorize(ctx.actor, organizationOf(environment), need, missing);
}
