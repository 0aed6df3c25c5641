/**
 * A gateway's configure form, drawn from its description
 * (server/contract/gateway-credentials.ts, served with the base URL choices
 * by gateways.forms): one labelled field per credential the adapter takes,
 * checked on the page with the same rules the server applies, and a base URL
 * chosen among the gateway's known addresses for this environment (a
 * platform operator may type another). Stored values never come back: a
 * field already set says so, and left blank it keeps its value.
 */
import { Badge, Group, PasswordInput, Select, Switch, Text, TextInput } from '@mantine/core';
import { useForm, type FormErrors } from '@mantine/form';
import { z } from 'zod';
import type { GatewayName } from '../../../server/contract/enums';
import { credentialIssues, type CredentialField } from '../../../server/contract/gateway-credentials';
import { api } from '../api/client';
import { failureOf } from '../api/errors';
import { useConfirmTarget } from '../shell/confirm-target';
import { askConfirmation } from '../ui/ConfirmButton';
import { useAction } from '../ui/action';
import { FormModal } from '../ui/FormModal';
import { gatewayConfigureConfirmation } from './gateway-effects';

export interface GatewayFormDescription {
  gateway: GatewayName;
  fields: readonly CredentialField[];
  baseUrls: { url: string; label: string }[];
  currentBaseUrl: string | null;
  anyHost: boolean;
}

interface Values {
  baseUrl: string;
  otherUrl: string;
  credentials: Record<string, string>;
  enabled: boolean;
}

/** The Select's value for "type another URL" (operators only). */
const OTHER = 'other';
const OtherUrl = z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' });

export function GatewayConfigureForm({
  description,
  environmentId,
  setFields,
  enabled,
  onClose,
}: {
  description: GatewayFormDescription;
  environmentId: string;
  /** The credential fields already stored (never their values). */
  setFields: readonly string[];
  /** The account's switch as it is (a new account starts enabled): saving does not turn it back on unasked. */
  enabled: boolean;
  onClose: () => void;
}) {
  const { gateway, fields, baseUrls, currentBaseUrl, anyHost } = description;
  const toInput = (values: Values) => ({
    environmentId,
    gateway,
    baseUrl: values.baseUrl === OTHER ? values.otherUrl.trim() : values.baseUrl,
    // Only what was typed: a field left blank keeps its stored value.
    credentials: Object.fromEntries(Object.entries(values.credentials).filter(([, value]) => value !== '')),
    enabled: values.enabled,
  });
  const form = useForm<Values>({
    initialValues: {
      baseUrl: currentBaseUrl ?? baseUrls[0]?.url ?? '',
      otherUrl: '',
      credentials: Object.fromEntries(fields.map((field) => [field.name, ''])),
      enabled,
    },
    validate: (values): FormErrors => {
      const errors: FormErrors = {};
      for (const issue of credentialIssues(gateway, toInput(values).credentials, setFields)) errors[issue.path.join('.')] = issue.message;
      if (!values.baseUrl) errors.baseUrl = 'choose where the gateway is reached';
      if (values.baseUrl === OTHER && !OtherUrl.safeParse(values.otherUrl.trim()).success) errors.otherUrl = 'must be an http:// or https:// URL';
      return errors;
    },
  });
  const save = useAction(
    async (values: Values) => {
      try {
        return await api.gateways.configure.mutate(toInput(values));
      } catch (error) {
        // The server's field problems show at their fields too (never with a value: it repeats none).
        for (const issue of failureOf(error)?.issues ?? []) {
          const path = issue.path.join('.');
          if (path) form.setFieldError(path === 'baseUrl' && values.baseUrl === OTHER ? 'otherUrl' : path, issue.message);
        }
        throw error;
      }
    },
    { success: `${gateway} configured.`, invalidate: [['gateways']], onSuccess: onClose },
  );
  const target = useConfirmTarget();
  const replacing = setFields.length > 0;
  const confirmSave = (values: Values) => askConfirmation(gatewayConfigureConfirmation(gateway, replacing, target), () => save.mutate(values));
  const choices = [
    ...baseUrls.map((choice) => ({ value: choice.url, label: `${choice.label}: ${choice.url}` })),
    ...(anyHost ? [{ value: OTHER, label: 'Another URL (platform operator)' }] : []),
  ];

  return (
    <FormModal opened onClose={onClose} title={`Configure ${gateway}`} size="lg" onSubmit={form.onSubmit(confirmSave)} submitLabel="Save" pending={save.isPending}>
      <Select
        label="Base URL"
        description={anyHost ? "Where the gateway is reached: one of its known addresses, or another one you type (it must pass the outbound address guard)." : "Where the gateway is reached: one of its known addresses here. Only a platform operator points it elsewhere."}
        data={choices}
        allowDeselect={false}
        required
        {...form.getInputProps('baseUrl')}
      />
      {form.values.baseUrl === OTHER && <TextInput label="Other base URL" placeholder="https://api.gateway.example" required {...form.getInputProps('otherUrl')} />}
      <div>
        <Text size="sm" fw={500}>
          Credentials
        </Text>
        <Text size="xs" c="dimmed">
          Stored encrypted and never shown again. {replacing ? 'A field left blank keeps its stored value; type a new value to replace it.' : ''}
        </Text>
      </div>
      {fields.map((field) => {
        const set = setFields.includes(field.name);
        const Input = field.secret ? PasswordInput : TextInput;
        return (
          <Input
            key={field.name}
            label={
              <Group component="span" gap={6} display="inline-flex">
                {field.label}
                {set && (
                  <Badge component="span" size="xs" variant="light" color="green">
                    set
                  </Badge>
                )}
              </Group>
            }
            description={`${field.help} At least ${field.minLength} characters.`}
            placeholder={set ? 'Leave blank to keep; type to replace' : undefined}
            autoComplete="off"
            spellCheck={false}
            required={!set}
            data-field={field.name}
            {...form.getInputProps(`credentials.${field.name}`)}
          />
        );
      })}
      <Switch label="Enabled" {...form.getInputProps('enabled', { type: 'checkbox' })} />
    </FormModal>
  );
}
