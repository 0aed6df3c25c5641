/** The CLI's version, from its own package.json (inlined by the bundler), for `payments --version`. */
import { version } from '../package.json';

export const CLI_VERSION: string = version;
