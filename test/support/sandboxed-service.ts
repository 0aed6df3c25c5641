/** A test service with one tenant whose environment routes to the three sandbox gateways, and the contract checker. */
import type { GatewayName, RoutingMethod } from '../../server/contract/enums';
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
  options: { env?: Record<string, string>; routes?: Partial<Record<RoutingMethod, GatewayName>> } = {},
): Promise<SandboxedService> {
  const service = await startTestService({ env: options.env });
  const tenant = await createTenant(service);
  const sandbox = await startSandbox(service, tenant.environmentId, options.routes);
  const contract = await loadContract(service.url);
  return {
    service,
    tenant,
    sandbox,
    contract,
    async stop() {
      await sandbox.close();
      await service.stop();
    },
  };
}
