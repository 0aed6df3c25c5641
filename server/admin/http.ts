import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { TRPCError } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Services } from '../services';
import { adminContext } from './procedure';
import { adminRouter } from './router';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The internal operator API over HTTP, behind `Authorization: Bearer <admin token>`. */
export function adminHttpHandler(services: Services, adminToken: string): RequestHandler {
  const expected = digest(adminToken);
  return createExpressMiddleware({
    router: adminRouter,
    createContext: ({ req }) => {
      const header = req.headers.authorization ?? '';
      const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
      // Fixed-length digests keep the comparison constant-time whatever the lengths.
      if (!timingSafeEqual(digest(presented), expected)) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Missing or wrong admin token.' });
      return adminContext(services, req.log);
    },
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') services.log.error({ err: error.cause ?? error, path }, 'admin procedure failed');
    },
  });
}
