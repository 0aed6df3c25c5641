/** Input of the reconciliation status procedure. Browser-safe: only zod and the contract. */
import { z } from 'zod';
import { RecordId } from '../schemas/text';

export const ReconciliationStatusInput = z.strictObject({
  /** Absent: every environment (platform operators only). */
  environmentId: RecordId.optional(),
  limit: z.int().min(1).max(500).default(50),
});
