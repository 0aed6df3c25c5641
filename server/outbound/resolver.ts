import { lookup } from 'node:dns/promises';

/**
 * Resolves a host name to every address it has. The service uses the system
 * resolver (the same one a socket would use); tests inject their own, so DNS
 * answers, including ones that change between calls, need no real DNS.
 */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
