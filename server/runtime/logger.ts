import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import SonicBoom from 'sonic-boom';

/**
 * JSON logs for machines (tests, production, anything reading stdout through
 * a pipe) and, on a terminal, coloured lines through pino-pretty. Request logs carry only method, path, status and latency (see
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

/**
 * Fields a database driver's error carries that can hold the statement's
 * values (PGlite puts the statement with its values inlined in `query`;
 * PostgreSQL's `detail` names the conflicting key's value). A logged error
 * keeps its type, code and message, never these.
 */
const STATEMENT_FIELDS = ['query', 'sql', 'params', 'parameters', 'queryOptions', 'detail', 'where', 'values'];

/** A database error (a five-character SQLSTATE): its message may quote a value (`invalid input syntax for type integer: "…"`). */
const isDatabaseError = (serialized: Record<string, unknown>) => typeof serialized.code === 'string' && /^[0-9A-Z]{5}$/.test(serialized.code);

function withoutStatement(serialized: Record<string, unknown>): Record<string, unknown> {
  if (!serialized || typeof serialized !== 'object') return serialized;
  for (const field of STATEMENT_FIELDS) delete serialized[field];
  if (isDatabaseError(serialized)) {
    // The stack starts with the message: both lose their quoted values.
    for (const field of ['message', 'stack'] as const) {
      if (typeof serialized[field] === 'string') serialized[field] = serialized[field].replace(/"[^"\n]*"/g, '"…"');
    }
  }
  if (serialized.cause && typeof serialized.cause === 'object') withoutStatement(serialized.cause as Record<string, unknown>);
  return serialized;
}

/** pino's error serializer, minus what a database error could leak (also used by the request logger, which brings its own). */
export const serializeError = (error: unknown) => withoutStatement(pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>);

export type LogFormat = 'pretty' | 'json';

/** Pretty on a terminal outside production, JSON otherwise; LOG_FORMAT decides when set. */
export const chooseLogFormat = (configured: LogFormat | undefined, env: string, stdoutIsTerminal = Boolean(process.stdout.isTTY)): LogFormat =>
  configured ?? (stdoutIsTerminal && env !== 'production' ? 'pretty' : 'json');

/**
 * pino-pretty as a synchronous stream in this process rather than a worker
 * transport: lines appear in the order they were logged, before the start
 * banner that follows them, and none are lost when the process exits. It is
 * only loaded when asked for.
 */
function prettyStream(): pino.DestinationStream {
  const loaded = createRequire(import.meta.url)('pino-pretty') as { default?: (options: object) => pino.DestinationStream } & ((options: object) => pino.DestinationStream);
  const build = loaded.default ?? loaded;
  return build({
    colorize: true,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The request line's message already says method, path, status, code and latency.
    ignore: 'pid,hostname,service,req,res,responseTime,component',
    // …but not the request id, which people quote to support (the SDK's errors carry it): it ends each line of a request.
    messageFormat: (entry: Record<string, unknown>, messageKey: string) => {
      const id = (entry.req as { id?: unknown } | undefined)?.id;
      return typeof id === 'string' ? `${String(entry[messageKey] ?? '')} [${id}]` : String(entry[messageKey] ?? '');
    },
  });
}

/**
 * JSON lines written asynchronously: a synchronous write blocks the whole
 * event loop whenever the pipe behind stdout is full (a slow log shipper), so
 * every request would wait on it. Each line is still handed to the system at
 * once (no batching delay), and what is pending when the process ends is
 * written before it does.
 *
 * Our own sonic-boom 5 rather than `pino.destination` (pino 10 ships sonic-boom
 * 4, whose `flushSync` retries forever, every 100 ms, on any write error that
 * is not EAGAIN: the exit flush below could then never return and the process
 * never exit). Version 5 throws such errors instead. As `pino.destination`
 * does, a reader that went away (EPIPE) stops the logging, not the service.
 */
function jsonStream(): pino.DestinationStream {
  const stream = new SonicBoom({ fd: 1, sync: false });
  let readerGone = false;
  const onError = (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      readerGone = true;
      stream.write = () => true;
      return;
    }
    stream.off('error', onError);
    stream.emit('error', error);
  };
  stream.on('error', onError);
  process.once('exit', () => {
    if (readerGone) return;
    try {
      stream.flushSync();
    } catch {
      // Exiting with stdout gone: nothing left to write to.
    }
  });
  return stream;
}

export function createLogger(level: string, destination?: NodeJS.WritableStream, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    base: { service: 'service-payments' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
  };
  if (destination) return pino(options, destination as pino.DestinationStream);
  return pino(options, format === 'pretty' ? prettyStream() : jsonStream());
}

export type { Logger };
