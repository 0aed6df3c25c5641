/**
 * The admin token check, written once for every /internal route that takes
 * it (the operator API, the listen stream). The presented bearer and the
 * expected token are compared as fixed-length digests, so the comparison is
 * constant-time whatever their lengths, and nothing else of the request is
 * read first.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerCredential } from '../contract/bearer';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function adminTokenCheck(adminToken: string): (authorization: string | undefined) => boolean {
  const expected = digest(adminToken);
  return (authorization) => {
    const presented = bearerCredential(authorization) ?? '';
    return timingSafeEqual(digest(presented), expected);
  };
}
