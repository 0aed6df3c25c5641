/** The first-run checklist of the project an environment belongs to; any member reads it. */
import { z } from 'zod';
import { RecordId } from '../contract/schemas/text';
import { firstRunChecklist } from '../domain/first-run';
import { environmentAccess } from './access';
import { operatorProcedure, operatorT as t } from './procedure';

export const ChecklistInput = z.strictObject({ environmentId: RecordId });

export const onboardingRouter = t.router({
  checklist: operatorProcedure.input(ChecklistInput).query(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'read');
    return firstRunChecklist(ctx.em, environment.project.id);
  }),
});
