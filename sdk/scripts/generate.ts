/** Regenerates `sdk/src/generated/contract.ts` from the server's contract: `npm run sdk:generate`. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { CONTRACT_FILE, currentContractSource } from './contract-source';

mkdirSync(dirname(CONTRACT_FILE), { recursive: true });
writeFileSync(CONTRACT_FILE, currentContractSource());
console.log(`wrote ${relative(process.cwd(), CONTRACT_FILE)}`);
