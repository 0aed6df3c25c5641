import { defineEntity, p } from '@mikro-orm/core';
import { TEXT_LIMITS } from '../../contract/limits';
import { newId } from '../../contract/ids';
import { Organization } from './organization';

export const ProjectSchema = defineEntity({
  name: 'Project',
  tableName: 'projects',
  properties: {
    id: p.string().primary().onCreate(() => newId('prj')),
    organization: () => p.manyToOne(Organization),
    name: p.string().length(TEXT_LIMITS.name),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Project extends ProjectSchema.class {}
ProjectSchema.setClass(Project);
