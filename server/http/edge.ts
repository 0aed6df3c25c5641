/**
 * The edge of the port: what arrives before, or instead of, a request the
 * application can route. Whatever it is, the answer is the contract's error
 * body and never a stack, a path or a framework's wording.
 * - A request target that is not a path (`GET * HTTP/1.1`, the absolute form
 *   `GET http://host/v1/health HTTP/1.1`, or anything not starting with `/`)
 *   names no route of this service: 404 `not_found`, before anything parses it.
 * - A request Node cannot parse at all (a broken request line, headers too
 *   large, bad chunking) never reaches express: `clientError` answers it on
 *   the socket and closes the connection.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ApiError } from '../contract/errors';

export const originFormOnly: RequestHandler = (req, res, next) => {
  if (req.url.startsWith('/') && !req.url.startsWith('//')) return next();
  res.status(404).json(new ApiError('not_found', {}, 'The request target must be a path starting with /.').toBody());
};

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

function rawAnswer(status: number, message: string): string {
  const body = JSON.stringify(new ApiError('invalid_input', { issues: [{ path: [], message }] }, 'The request could not be read.').toBody());
  return (
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Answers requests Node's HTTP parser refused, in the contract's shape, and logs why (never the bytes). */
export function answerUnparsableRequests(server: Server, log: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    log.warn({ code: error.code }, 'unparsable request refused');
    if (error.code === 'ECONNRESET' || !socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const [status, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'request headers are too large']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'the request was not received in time']
          : [400, 'malformed HTTP request'];
    socket.end(rawAnswer(status, message));
  });
}
