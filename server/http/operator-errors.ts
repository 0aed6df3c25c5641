/** How the operator API's edge (internal-api.ts, listen-stream.ts) writes an error answer chosen by operator/operator-answers.ts. */
import type { Response } from 'express';
import { OPERATOR_ERRORS, operatorErrorBody, type OperatorAnswer } from '../operator/operator-answers';

/** Writes the answer, with Retry-After for `rate_limited` and `service_unavailable`. */
export function sendOperatorAnswer(res: Response, reply: OperatorAnswer): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // Named on the request's log line (http/request-log.ts), as an answer chosen by tRPC's onError is.
  res.req.operatorAnswer = reply;
  if (reply.retryAfter) res.setHeader('retry-after', String(reply.retryAfter));
  res.status(OPERATOR_ERRORS[reply.code].status).type('application/json').send(operatorErrorBody(reply));
}
