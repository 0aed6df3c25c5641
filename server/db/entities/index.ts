import { ApiKeySchema } from './api-key';
import { EnvironmentSchema } from './environment';
import { MonthlyUsageSchema } from './monthly-usage';
import { OrganizationSchema } from './organization';
import { ProjectSchema } from './project';

export { ApiKey } from './api-key';
export { Environment } from './environment';
export { MonthlyUsage } from './monthly-usage';
export { Organization } from './organization';
export { Project } from './project';

export const ENTITIES = [OrganizationSchema, ProjectSchema, EnvironmentSchema, ApiKeySchema, MonthlyUsageSchema];
