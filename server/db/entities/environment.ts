import { defineEntity, p } from '@mikro-orm/core';
import { ENVIRONMENT_KINDS } from '../../contract/enums';
import { newId } from '../../contract/ids';
import { Project } from './project';

export const EnvironmentSchema = defineEntity({
  name: 'Environment',
  tableName: 'environments',
  uniques: [{ properties: ['project', 'kind'] }],
  properties: {
    id: p.string().primary().onCreate(() => newId('env')),
    project: () => p.manyToOne(Project),
    kind: p.enum(ENVIRONMENT_KINDS),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Environment extends EnvironmentSchema.class {}
EnvironmentSchema.setClass(Environment);
