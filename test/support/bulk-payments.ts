/**
 * Many payments in one statement, for the lists' tests (search, sort, count,
 * CSV export of thousands of rows): inserted straight into the table, since
 * thousands of /v1 creates would take minutes and test nothing of the list.
 * Rows are `pix` payments on gateway_a, pending, a second apart (newest is
 * `n`), amounts cycling through `amounts` so many amounts are equal. Times are
 * whole milliseconds, as the service writes them (a JavaScript Date): cursors
 * carry milliseconds.
 */
import type { TestService } from './service';

export async function insertPayments(
  service: TestService,
  environmentId: string,
  options: { count: number; prefix?: string; amounts?: number[]; status?: string },
): Promise<void> {
  const prefix = options.prefix ?? 'bulk';
  const amounts = options.amounts ?? [1000, 2500, 2500, 9990];
  await service.services.db
    .fork()
    .getConnection()
    .execute(
      `insert into payments (id, environment_id, external_id, method, gateway, amount, currency, status, request_hash, customer_name, customer_email, customer_document_last4, created_at, updated_at)
       select ? || lpad(g::text, 6, '0'), ?, ? || '-' || g, 'pix', 'gateway_a', (array[${amounts.map(Number).join(',')}]::bigint[])[1 + g % ${amounts.length}], 'BRL', ?, repeat('0', 64),
              'Bulk Customer ' || g, ? || g || '@example.com', '0000', date_trunc('milliseconds', now()) - interval '1 hour' + g * interval '1 second', date_trunc('milliseconds', now())
         from generate_series(1, ?) g`,
      [`pay_${prefix}_`, environmentId, prefix, options.status ?? 'pending', prefix, options.count],
    );
}
