/** What a change to a gateway account does to live traffic, in the words its confirmation uses. */
import type { Confirmation, ConfirmTarget } from '../ui/ConfirmButton';
import { disableEffects, disableMessage, list, METHOD_NAMES, type MethodRule } from './gateway-disable-text';

export type { MethodRule } from './gateway-disable-text';

/** The methods whose routing rule names this gateway (first or as a fallback). */
export function methodsRoutedTo(rules: readonly MethodRule[], gateway: string): string[] {
  const order = Object.keys(METHOD_NAMES);
  return [...rules]
    .sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method))
    .filter((rule) => rule.gateways.some((entry) => entry.gateway === gateway))
    .map((rule) => METHOD_NAMES[rule.method] ?? rule.method);
}

export function gatewaySwitchConfirmation(gateway: string, enable: boolean, rules: readonly MethodRule[], enabled: readonly string[], target: ConfirmTarget | undefined): Confirmation {
  if (enable) {
    const methods = methodsRoutedTo(rules, gateway);
    return {
      title: `Enable ${gateway}?`,
      message: methods.length
        ? `New ${list(methods)} payments routed to ${gateway} are sent to it again, from now on.`
        : `No routing rule sends payments to ${gateway} yet; it takes new payments once a rule does.`,
      confirmLabel: `Enable ${gateway}`,
      target,
    };
  }
  const effects = disableEffects(rules, enabled, gateway);
  return {
    title: `Disable ${gateway}?`,
    message: disableMessage(gateway, effects),
    confirmLabel: `Disable ${gateway}`,
    cancelLabel: 'Keep it enabled',
    danger: effects.fail.length > 0 || effects.move.length > 0,
    target,
  };
}

export function gatewayConfigureConfirmation(gateway: string, replacing: boolean, target: ConfirmTarget | undefined): Confirmation {
  return {
    title: replacing ? `Replace ${gateway}'s configuration?` : `Configure ${gateway}?`,
    message: replacing
      ? `New payments routed to ${gateway} use this base URL and the credentials you typed at once (fields left blank keep their stored values), and the credentials replaced are discarded: if they are wrong, those payments fail until it is fixed.`
      : `${gateway} can take new payments as soon as a routing rule sends them to it.`,
    confirmLabel: replacing ? 'Replace configuration' : 'Save',
    danger: replacing,
    target,
  };
}

/** Turning a webhook endpoint off or on: what its receiver gets from then on. */
export function endpointSwitchConfirmation(url: string, enable: boolean, target: ConfirmTarget | undefined): Confirmation {
  return enable
    ? {
        title: 'Enable this endpoint?',
        message: `Events from now on are delivered to ${url} again. Events that happened while it was off were not queued for it: read them from GET /v1/events.`,
        confirmLabel: 'Enable endpoint',
        target,
      }
    : {
        title: 'Disable this endpoint?',
        message: `Events from now on are not delivered to ${url}: your receiver stops hearing about payments (payment.paid included) until it is enabled again, and they are not queued for later; they stay readable from GET /v1/events.`,
        confirmLabel: 'Disable endpoint',
        cancelLabel: 'Keep it enabled',
        danger: true,
        target,
      };
}
