import { pino, type Logger } from 'pino';

/**
 * JSON logs. Request logs carry only method, path, status and latency (see
 * http/request-log.ts), never headers or bodies; the redaction below is the
 * second line of defence for anything passed as a log field by mistake.
 */
const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'adminToken',
  'credentials',
  '*.credentials',
  'document',
  '*.document',
  'customer.document',
  '*.customer.document',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { service: 'service-payments' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination as pino.DestinationStream) : pino(options);
}

export type { Logger };
