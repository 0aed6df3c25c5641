/**
 * The one fixture for a sandboxed service: a test service with one tenant
 * whose environment routes to the three sandbox gateways, and the contract
 * checker. With `simulatorsInService`, the simulators are also plugged into
 * the service's sandbox seam, as the embedded demo does, so the operator
 * API's simulator actions and triggers drive them.
 */
import type { GatewayName, RoutingMethod } from '../../server/contract/enums';
import { inProcessSandbox } from '../../server/sandbox/in-process';
import { loadContract, type ContractChecker } from './contract';
import { startSandbox, type Sandbox } from './gateways';
import { startTestService, type TestService } from './service';
import { createTenant, type TestTenant } from './tenant';

export interface SandboxedService {
  service: TestService;
  tenant: TestTenant;
  sandbox: Sandbox;
  contract: ContractChecker;
  stop(): Promise<void>;
}

export async function startSandboxedService(
  options: { env?: Record<string, string>; routes?: Partial<Record<RoutingMethod, GatewayName>>; simulatorsInService?: boolean; now?: () => Date } = {},
): Promise<SandboxedService> {
  const service = await startTestService({ env: options.env, now: options.now });
  const tenant = await createTenant(service);
  const sandbox = await startSandbox(service, tenant.environmentId, options.routes);
  const contract = await loadContract(service.url);
  if (options.simulatorsInService) service.services.sandbox = inProcessSandbox(sandbox.sims);
  return {
    service,
    tenant,
    sandbox,
    contract,
    async stop() {
      service.services.sandbox = null; // the sandbox closes its simulators itself
      await sandbox.close();
      await service.stop();
    },
  };
}
