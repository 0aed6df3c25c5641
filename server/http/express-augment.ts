import type { ApiError } from '../contract/errors';

declare global {
  namespace Express {
    interface Request {
      /** A body that could not be parsed, reported after authentication (the contract's order of checks). */
      bodyError?: ApiError;
      /** The contract error this request ends with, written by the error-body wrapper. */
      apiError?: ApiError;
    }
  }
}
export {};
