/** The customer and the hosted checkout link of a subscription, as facts: merchant-supplied text isolated so it cannot reorder what surrounds it. */
import { Anchor } from '@mantine/core';
import type { ReactNode } from 'react';

interface WithCustomer {
  customer: { name: string | null; email: string | null; documentLast4: string | null } | null;
  checkoutUrl: string | null;
  status: string;
}

export function customerFacts(record: WithCustomer): [string, ReactNode][] {
  const customer = record.customer;
  const parts = customer ? [customer.name, customer.email, customer.documentLast4 ? `document •••${customer.documentLast4}` : null].filter((part): part is string => Boolean(part)) : [];
  return [
    [
      'Customer',
      parts.length === 0
        ? '—'
        : parts.map((part, index) => (
            <span key={index}>
              {index > 0 && ' · '}
              <bdi>{part}</bdi>
            </span>
          )),
    ],
    [
      'Checkout link',
      record.checkoutUrl ? (
        <Anchor href={record.checkoutUrl} target="_blank" rel="noreferrer noopener">
          hosted checkout page
        </Anchor>
      ) : (
        '—'
      ),
    ],
  ];
}
