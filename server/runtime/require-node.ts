/**
 * MikroORM 7 and undici 8 need Node >= 22.17. npm scripts run on the Node the
 * package installs (node_modules/.bin/node); if install scripts were skipped
 * they silently fall back to the system Node, so fail fast and say why.
 */
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 17)) {
  process.stderr.write(
    `service-payments needs Node >= 22.17 but runs on ${process.versions.node}.\n` +
      'Run it through npm (npm start, npm test), which uses the Node installed in node_modules/.bin; ' +
      'if that is missing, reinstall with install scripts enabled (npm ci).\n',
  );
  process.exit(1);
}
export {};
