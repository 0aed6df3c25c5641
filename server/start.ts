/**
 * The service's entry point once built (dist/main.js). It checks the Node
 * version before anything else loads: a module's imports of packages are
 * all evaluated before its own first line, so main.ts, which imports them,
 * is only loaded after the check (the build puts it in its own chunk).
 */
import './runtime/require-node';

await import('./main');
