/**
 * Where the embedded service keeps the admin token it generates when none is
 * configured, so `payments-admin` on the same machine finds it: the data
 * folder (`DATA_DIR`, `./data` by default), file `admin-token`.
 */
export const DEFAULT_DATA_DIR = './data';
export const ADMIN_TOKEN_FILE = 'admin-token';
