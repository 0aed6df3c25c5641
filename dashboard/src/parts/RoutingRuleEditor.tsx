/**
 * One method's routing rule, edited as an ordered list: the first gateway
 * takes new requests, the next ones are its fallbacks (tried only while the
 * one before is unavailable), and optional weights split new requests among
 * them. Everything works from the keyboard: each row has move up / move down
 * / remove buttons, and focus follows the row that moved. Saving asks first,
 * naming the effect (and the environment, in production); clearing the rule
 * warns that every new request of the method will be refused.
 */
import { ActionIcon, Alert, Badge, Button, Card, Group, NumberInput, Select, Stack, Switch, Text, Title, VisuallyHidden } from '@mantine/core';
import { useEffect, useId, useRef, useState } from 'react';
import { GATEWAY_NAMES, type GatewayName, type RoutingMethod } from '../../../server/contract/enums';
import { api } from '../api/client';
import { useConfirmTarget } from '../shell/confirm-target';
import { useAction } from '../ui/action';
import { askConfirmation } from '../ui/ConfirmButton';
import {
  clearEffect,
  draftErrors,
  draftToRule,
  MAX_WEIGHT,
  METHOD_LABEL,
  METHOD_NOUN,
  ruleEffect,
  ruleSummary,
  sameRule,
  type DraftGateway,
  type RuleGateway,
} from './routing-rule';

export interface GatewayAccountState {
  gateway: GatewayName;
  enabled: boolean;
}

const toDraft = (rule: RuleGateway[]): DraftGateway[] => rule.map((g) => ({ gateway: g.gateway, weight: g.weight ?? '' }));

/** Why a gateway of the rule would be passed over, whatever its health. */
function accountProblem(gateway: GatewayName, accounts: GatewayAccountState[]): string | null {
  const account = accounts.find((a) => a.gateway === gateway);
  if (!account) return 'not configured';
  return account.enabled ? null : 'disabled';
}

/** The effect, then what would make the rule behave otherwise than it reads. */
function Effect({ message, warnings }: { message: string; warnings: string[] }) {
  return (
    <Stack gap="xs">
      <Text size="sm">{message}</Text>
      {warnings.map((warning) => (
        <Text size="sm" c="orange.9" key={warning}>
          {warning}
        </Text>
      ))}
    </Stack>
  );
}

export function RoutingRuleEditor({
  method,
  environmentId,
  rule,
  accounts,
  canEdit,
}: {
  method: RoutingMethod;
  environmentId: string;
  /** The rule in force (empty: none). */
  rule: RuleGateway[];
  accounts: GatewayAccountState[];
  canEdit: boolean;
}) {
  const label = METHOD_LABEL[method];
  const headingId = useId();
  const rowId = (gateway: GatewayName, what: string) => `${headingId}-${gateway}-${what}`;
  const [draft, setDraft] = useState<DraftGateway[]>(() => toDraft(rule));
  const [split, setSplit] = useState(() => rule.some((g) => g.weight !== null));
  const [showErrors, setShowErrors] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const [focusNext, setFocusNext] = useState<string | null>(null);

  // A rule saved elsewhere (or by this form) replaces a draft with no change of its own; a draft with changes is kept,
  // and the person told that saving it replaces what someone else just saved.
  const ruleKey = JSON.stringify(rule);
  const shown = useRef(rule);
  const [changedElsewhere, setChangedElsewhere] = useState(false);
  useEffect(() => {
    const before = shown.current;
    shown.current = rule;
    const current = draftToRule(draft, split && draft.length > 1);
    if (sameRule(current, rule) || sameRule(current, before)) {
      setDraft(toDraft(rule));
      setSplit(rule.some((g) => g.weight !== null));
      setShowErrors(false);
      setChangedElsewhere(false);
    } else setChangedElsewhere(true);
  }, [ruleKey]);

  // Focus stays on the control that was used, after its row moved or went away.
  useEffect(() => {
    if (!focusNext) return;
    document.getElementById(focusNext)?.focus();
    setFocusNext(null);
  }, [focusNext, draft]);

  // Weights mean something only between two gateways or more.
  const splitting = split && draft.length > 1;
  const errors = draftErrors(draft, splitting);
  const proposed = draftToRule(draft, splitting);
  const dirty = !sameRule(proposed, rule);
  const used = new Set(draft.map((g) => g.gateway));
  const unused = GATEWAY_NAMES.filter((g) => !used.has(g));
  const target = useConfirmTarget();
  const inProduction = target?.kind === 'production';

  const save = useAction(
    (next: RuleGateway[]): Promise<unknown> =>
      next.length
        ? api.routing.set.mutate({ environmentId: environmentId, method, gateways: next.map((g) => (g.weight === null ? { gateway: g.gateway } : { gateway: g.gateway, weight: g.weight })) })
        : api.routing.remove.mutate({ environmentId: environmentId, method }),
    {
      success: (_, next) => (next.length ? `${label} rule saved.` : `${label} rule removed: new ${METHOD_NOUN[method]} are refused until a rule is set.`),
      invalidate: [['routing']],
    },
  );

  const move = (index: number, by: -1 | 1) => {
    const target = index + by;
    const row = draft[index]!;
    const next = [...draft];
    next.splice(index, 1);
    next.splice(target, 0, row);
    setDraft(next);
    setAnnouncement(`${row.gateway} moved to position ${target + 1} of ${next.length}.`);
    // At the top or bottom the button used is disabled: focus its twin.
    const edge = target === 0 ? 'down' : target === next.length - 1 ? 'up' : by === -1 ? 'up' : 'down';
    setFocusNext(rowId(row.gateway, edge));
  };
  const remove = (index: number) => {
    const row = draft[index]!;
    const next = draft.filter((_, i) => i !== index);
    setDraft(next);
    setAnnouncement(`${row.gateway} removed from the ${label} rule.`);
    setFocusNext(next.length ? rowId(next[Math.min(index, next.length - 1)]!.gateway, 'remove') : `${headingId}-add`);
  };
  const add = () => {
    const gateway = unused[0];
    if (!gateway) return;
    setDraft([...draft, { gateway, weight: split ? 0 : '' }]);
    setAnnouncement(`${gateway} added as fallback ${draft.length}.`);
    setFocusNext(rowId(gateway, 'gateway'));
  };
  const replace = (index: number, gateway: GatewayName) => {
    const next = [...draft];
    next[index] = { ...next[index]!, gateway };
    setDraft(next);
    setFocusNext(rowId(gateway, 'gateway'));
  };
  const setWeight = (index: number, weight: number | string) => {
    const next = [...draft];
    next[index] = { ...next[index]!, weight };
    setDraft(next);
  };
  const toggleSplit = (on: boolean) => {
    setSplit(on);
    // Turning the split on starts from an even split the person then adjusts.
    if (on && draft.every((g) => g.weight === '')) {
      const each = Math.floor(100 / draft.length);
      setDraft(draft.map((g, i) => ({ ...g, weight: i === 0 ? 100 - each * (draft.length - 1) : each })));
    }
  };

  const confirmSave = () => {
    if (Object.keys(errors).length) {
      setShowErrors(true);
      return;
    }
    if (proposed.length === 0) return confirmClear();
    const warnings = proposed.flatMap((g) => {
      const problem = accountProblem(g.gateway, accounts);
      return problem ? [`${g.gateway} is ${problem} in this environment: it will be passed over until that changes.`] : [];
    });
    askConfirmation(
      {
        title: `Change the ${label} rule${inProduction ? ' in production' : ''}?`,
        message: <Effect message={ruleEffect(method, proposed)} warnings={warnings} />,
        confirmLabel: 'Save rule',
        target,
      },
      () => save.mutate(proposed),
    );
  };
  const confirmClear = () =>
    askConfirmation(
      {
        title: `Remove the ${label} rule${inProduction ? ' in production' : ''}?`,
        message: <Effect message={clearEffect(method)} warnings={[]} />,
        confirmLabel: 'Remove rule',
        danger: true,
        target,
      },
      () => save.mutate([]),
    );

  const weightTotal = draft.reduce((sum, g) => sum + (g.weight === '' || !Number.isFinite(Number(g.weight)) ? 0 : Number(g.weight)), 0);

  return (
    <Card withBorder component="section" aria-labelledby={headingId}>
      <Group justify="space-between" mb="xs">
        <Title order={3} size="h5" id={headingId}>
          {label}
        </Title>
        {rule.length === 0 ? (
          <Badge color="red" variant="light">
            no rule: refused
          </Badge>
        ) : dirty ? (
          <Badge color="yellow" variant="light">
            unsaved changes
          </Badge>
        ) : null}
      </Group>
      <VisuallyHidden aria-live="polite">{announcement}</VisuallyHidden>
      <Stack gap="xs">
        {draft.length === 0 && (
          <Text size="sm" c="dimmed">
            No gateway: every new {METHOD_NOUN[method].replace(/s$/, '')} is refused (409 no_routing_rule).
          </Text>
        )}
        <Stack gap={6} component="ol" m={0} p={0} style={{ listStyle: 'none' }}>
          {draft.map((row, index) => {
            const problem = accountProblem(row.gateway, accounts);
            const position = index === 0 ? 'Primary' : `Fallback ${index}`;
            return (
              <Group key={row.gateway} component="li" gap={6} wrap="nowrap" align="flex-start">
                <Select
                  id={rowId(row.gateway, 'gateway')}
                  aria-label={`${position} gateway`}
                  description={index === 0 ? 'first' : `then, if unavailable`}
                  size="xs"
                  style={{ flex: 1, minWidth: 120 }}
                  allowDeselect={false}
                  disabled={!canEdit}
                  data={GATEWAY_NAMES.filter((g) => g === row.gateway || !used.has(g)).map((g) => ({
                    value: g,
                    label: accountProblem(g, accounts) ? `${g} (${accountProblem(g, accounts)})` : g,
                  }))}
                  value={row.gateway}
                  onChange={(value) => value && replace(index, value as GatewayName)}
                  error={showErrors ? errors[`gateway.${index}`] : undefined}
                />
                {splitting && (
                  <NumberInput
                    aria-label={`Weight of ${row.gateway}`}
                    suffix="%"
                    size="xs"
                    w={110}
                    min={0}
                    max={MAX_WEIGHT}
                    step={1}
                    allowDecimal={false}
                    allowNegative={false}
                    disabled={!canEdit}
                    value={row.weight}
                    onChange={(value) => setWeight(index, value)}
                    error={showErrors ? errors[`weight.${index}`] : undefined}
                  />
                )}
                {canEdit && (
                  <Group gap={2} wrap="nowrap" mt={4}>
                    <ActionIcon id={rowId(row.gateway, 'up')} variant="subtle" aria-label={`Move ${row.gateway} up`} disabled={index === 0} onClick={() => move(index, -1)}>
                      ↑
                    </ActionIcon>
                    <ActionIcon
                      id={rowId(row.gateway, 'down')}
                      variant="subtle"
                      aria-label={`Move ${row.gateway} down`}
                      disabled={index === draft.length - 1}
                      onClick={() => move(index, 1)}
                    >
                      ↓
                    </ActionIcon>
                    <ActionIcon id={rowId(row.gateway, 'remove')} variant="subtle" color="red" aria-label={`Remove ${row.gateway}`} onClick={() => remove(index)}>
                      ×
                    </ActionIcon>
                  </Group>
                )}
                {problem && (
                  <Badge color="orange" variant="light" mt={6} style={{ flexShrink: 0 }}>
                    {problem}
                  </Badge>
                )}
              </Group>
            );
          })}
        </Stack>
        {splitting && !(showErrors && errors.rule) && (
          <Text size="xs" c={weightTotal === 100 ? 'dimmed' : 'orange.9'}>
            Weights add up to {weightTotal} of 100.
          </Text>
        )}
        {showErrors && errors.rule && (
          <Text size="xs" c="red" role="alert">
            {errors.rule}
          </Text>
        )}
        {canEdit && (
          <>
            <Group gap="xs">
              <Button id={`${headingId}-add`} size="xs" variant="light" disabled={unused.length === 0} onClick={add}>
                {draft.length === 0 ? 'Add a gateway' : 'Add a fallback'}
              </Button>
              {draft.length > 1 && <Switch size="xs" label="Split by weight" checked={split} onChange={(e) => toggleSplit(e.currentTarget.checked)} />}
            </Group>
            {dirty && changedElsewhere && (
              <Alert color="orange" variant="light" p="xs" role="alert">
                <Text size="xs">
                  This rule was changed elsewhere while you edited it; it is now {rule.length ? ruleSummary(rule) : 'removed'}. Saving replaces that with yours.
                </Text>
              </Alert>
            )}
            {dirty && Object.keys(errors).length === 0 && (
              <Alert color="blue" variant="light" p="xs">
                <Text size="xs">{draft.length ? ruleEffect(method, proposed) : clearEffect(method)}</Text>
              </Alert>
            )}
            {(dirty || rule.length > 0) && (
              <Group gap="xs">
                {dirty ? (
                  <>
                    <Button size="xs" loading={save.isPending} onClick={confirmSave} color={draft.length === 0 ? 'red' : undefined}>
                      {draft.length === 0 ? 'Remove rule' : 'Save rule'}
                    </Button>
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => {
                        setDraft(toDraft(rule));
                        setSplit(rule.some((g) => g.weight !== null));
                        setShowErrors(false);
                        setChangedElsewhere(false);
                      }}
                    >
                      Discard changes
                    </Button>
                  </>
                ) : (
                  <Button size="xs" variant="light" color="red" loading={save.isPending} onClick={confirmClear}>
                    Remove rule
                  </Button>
                )}
              </Group>
            )}
          </>
        )}
      </Stack>
    </Card>
  );
}
