import type { z } from 'zod';
import { digitsOf, type CustomerInput } from '../contract/schemas/common';
import type { GatewayCustomer } from '../gateways';

type CustomerRequest = z.output<typeof CustomerInput>;

/** What the gateway receives: the whole document, as digits (it is sealed, never stored in plaintext). */
export const gatewayCustomer = (customer: CustomerRequest): GatewayCustomer => ({
  name: customer.name,
  email: customer.email,
  document: digitsOf(customer.document),
  phone: customer.phone ?? null,
});

/** What the service keeps: name, e-mail and only the last 4 digits of the document. */
export const storedCustomer = (customer: CustomerRequest) => ({
  customerName: customer.name,
  customerEmail: customer.email,
  customerDocumentLast4: digitsOf(customer.document).slice(-4),
});
