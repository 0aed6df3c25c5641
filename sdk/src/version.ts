/**
 * The SDK's version, from its own package.json: the bundler inlines the one
 * field at build time, and source runs (the repository's tests) read the same
 * file, so the number lives in one place.
 */
import { version } from '../package.json';

export const SDK_VERSION: string = version;
