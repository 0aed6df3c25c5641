/**
 * The gateway operations a sandbox simulator can be told to misbehave on
 * (`payments-admin simulator fault`): part of the internal API's vocabulary,
 * so the CLI can list and check them without loading the simulators.
 */
export const SIM_OPERATIONS = [
  'createPayment',
  'getPayment',
  'cancelPayment',
  'getPixQrCode',
  'createSubscription',
  'getSubscription',
  'cancelSubscription',
  'getPlan',
] as const;
export type SimOperation = (typeof SIM_OPERATIONS)[number];
