#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, resolved from this package wherever it is called from.
import { register } from 'tsx/esm/api';

register();
await import('../server/admin/cli/main.ts');
