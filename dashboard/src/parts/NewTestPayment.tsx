/**
 * "New test payment", in sandbox environments: a payment made through the
 * same use case as POST /v1/payments (sandbox.createPayment), checked with
 * the very schema of that endpoint. The customer is filled with a test
 * person; the amount is typed in reais and sent in cents.
 */
import { Button, Group, Modal, NumberInput, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from 'react-router';
import { CreateTestPaymentInput } from '../../../server/contract/operator/sandbox';
import { api } from '../api/client';
import { useAction } from '../ui/action';
import { zodValidate } from '../ui/zod-form';

interface Values {
  method: 'pix' | 'card';
  amount: number | string;
  externalId: string;
  name: string;
  email: string;
  document: string;
  phone: string;
  installments: number | string;
}

const testExternalId = () => `test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

export function NewTestPayment({ environmentId, opened, onClose }: { environmentId: string; opened: boolean; onClose: () => void }) {
  const navigate = useNavigate();
  const toInput = (values: Values) => ({
    environmentId,
    payment: {
      method: values.method,
      amount: values.amount === '' ? Number.NaN : Math.round(Number(values.amount) * 100),
      externalId: values.externalId.trim(),
      customer: { name: values.name, email: values.email, document: values.document, ...(values.phone.trim() ? { phone: values.phone } : {}) },
      ...(values.method === 'card' ? { card: { installments: Number(values.installments) } } : {}),
    },
  });
  const form = useForm<Values>({
    initialValues: { method: 'pix', amount: 19.9, externalId: testExternalId(), name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09', phone: '', installments: 1 },
    validate: (values) => {
      const errors = zodValidate(CreateTestPaymentInput, toInput)(values);
      // Issue paths name the API's fields (payment.customer.name); the form's are flat.
      return Object.fromEntries(Object.entries(errors).map(([path, message]) => [path.replace(/^payment\.(customer\.|card\.)?/, ''), message]));
    },
  });
  const create = useAction((values: Values) => api.sandbox.createPayment.mutate(CreateTestPaymentInput.parse(toInput(values))), {
    success: (payment) => `Test payment ${payment.id} created (${payment.status}).`,
    invalidate: [['payments'], ['overview']],
    onSuccess: (payment) => {
      onClose();
      form.setValues({ externalId: testExternalId() });
      void navigate(`/e/${environmentId}/payments/${payment.id}`);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title="New test payment">
      <form onSubmit={form.onSubmit((values) => create.mutate(values))} noValidate>
        <Stack>
          <Text size="sm" c="dimmed">
            Goes to the sandbox gateway this environment routes the method to, exactly like POST /v1/payments; then drive it with the simulator buttons.
          </Text>
          <SegmentedControl
            aria-label="Method"
            data={[
              { value: 'pix', label: 'Pix' },
              { value: 'card', label: 'Card' },
            ]}
            {...form.getInputProps('method')}
          />
          <NumberInput label="Amount (BRL)" min={0.01} decimalScale={2} fixedDecimalScale step={1} {...form.getInputProps('amount')} />
          <TextInput label="External id" description="Your order id; repeating one returns the same payment." {...form.getInputProps('externalId')} />
          <TextInput label="Customer name" {...form.getInputProps('name')} />
          <TextInput label="Customer e-mail" type="email" {...form.getInputProps('email')} />
          <TextInput label="Customer CPF or CNPJ" {...form.getInputProps('document')} />
          <TextInput label="Customer phone" description="Needed for cards routed to gateway_c." {...form.getInputProps('phone')} />
          {form.values.method === 'card' && <NumberInput label="Installments" min={1} max={24} allowDecimal={false} {...form.getInputProps('installments')} />}
          <Group justify="flex-end">
            <Button type="submit" loading={create.isPending}>
              Create test payment
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
