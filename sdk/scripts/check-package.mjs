// `npm run check:package`: publint and arethetypeswrong on a tarball packed into a temporary folder.
// (`attw --pack .` packs into this folder and then deletes the tarball it made, which has the name of
// the one `npm pack` makes here: a tarball of yours would be gone.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const folder = mkdtempSync(join(tmpdir(), 'sdk-check-'));
const run = (command, args, options = {}) => execFileSync(command, args, { stdio: 'inherit', ...options });
try {
  // (npm pack builds first: its output is the build's, so the tarball is found in the folder.)
  run('npm', ['pack', '--silent', '--pack-destination', folder], { stdio: ['ignore', 'ignore', 'inherit'] });
  const filename = readdirSync(folder).find((name) => name.endsWith('.tgz'));
  run('npx', ['publint', '--strict']);
  run('npx', ['attw', join(folder, filename)]);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
