/**
 * `users.resetSecondFactor`, operator only (CLI `users second-factor reset
 * <email>`): a user lost their phone and recovery codes. Their second factor
 * is removed and every session of theirs ends; audited.
 */
import { resetSecondFactor } from '../domain/people/second-factor';
import { requireOperator } from './access';
import { audited } from './audited';
import { ResetSecondFactorInput } from '../contract/operator/people';
import { operatorProcedure } from './procedure';

export const resetSecondFactorProcedure = operatorProcedure.input(ResetSecondFactorInput).mutation(({ ctx, input }) => {
  requireOperator(ctx.actor);
  return audited(ctx, async (em, audit) => {
    const answer = await resetSecondFactor(em, input.email, ctx.services.now());
    audit({
      action: 'user.second_factor_reset',
      organizationId: null,
      target: { type: 'user', id: answer.userId },
      before: { secondFactor: answer.hadSecondFactor },
      after: { secondFactor: false, sessionsEnded: answer.sessionsEnded },
    });
    return answer;
  });
});
