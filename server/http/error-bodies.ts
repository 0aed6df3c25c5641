/**
 * trpc-to-openapi always writes its own error body (`code`, Zod issues, the
 * error message); no option changes it. The adapter reports the error to
 * `onError` just before writing, so we record the contract error there and
 * swap the body on its way out. The status comes from `responseMeta`.
 */
import type { RequestHandler } from 'express';

export const contractErrorBodies: RequestHandler = (req, res, next) => {
  const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
  res.end = ((...args: unknown[]) => {
    if (req.apiError && typeof args[0] === 'string') args[0] = JSON.stringify(req.apiError.toBody());
    return end(...args);
  }) as typeof res.end;
  next();
};
