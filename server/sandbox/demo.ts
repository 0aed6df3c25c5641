/**
 * The embedded default's demo, the sandbox wing's one entry from the service:
 * main.ts imports it on demand when the demo is seeded, so a service that
 * runs no demo (production) never loads anything under server/sandbox/.
 */
import type { Services } from '../services';
import { startDemoGateways } from './demo-gateways';
import { ensureDemoTenant, type DemoTenant } from './demo-seed';

/** Seeds (or finds) the demo tenant and plugs this run's simulators into the service. */
export async function startDemo(services: Services): Promise<DemoTenant | null> {
  const demo = await ensureDemoTenant(services);
  if (demo) services.sandbox = await startDemoGateways(services, demo.environmentId);
  return demo;
}
