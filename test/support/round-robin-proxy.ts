/**
 * A small load balancer in front of service nodes, as in production: it asks
 * each node's `/readyz` every `pollMs` and sends requests, round robin, only
 * to ready nodes (in after one 200, out after two failed probes in a row),
 * over keep-alive connections. It
 * never retries: a request a node fails to answer is a failure the test sees
 * (502 from here, recorded in `failures`). Each node's probe answers are kept
 * in order, so a test can tell whether `draining` came before the listener closed.
 */
import { Agent, createServer, request, get, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One `/readyz` poll: the status the node gave, or `refused` when nothing listened. */
export type ProbeOutcome = 'ready' | 'draining' | 'not_ready' | 'refused' | 'error';

export interface BalancedNode {
  url: string;
  /** Every poll's outcome, oldest first. */
  probes: { at: number; outcome: ProbeOutcome }[];
  ready(): boolean;
}

export interface RoundRobinProxy {
  url: string;
  nodes: BalancedNode[];
  /** Requests the balancer could not get answered: no node ready, or a node's connection failed. */
  failures: { at: number; node: string | null; method: string; path: string; error: string }[];
  close(): Promise<void>;
}

/** Consecutive failed probes that take a node out of the rotation. */
const FAILURE_THRESHOLD = 2;
/**
 * How long one probe may take, as a balancer's health-check timeout (Kubernetes' default is 1 s, an ALB's 5 s). Above
 * the node's own check deadline (server/http/probes.ts, CHECK_DEADLINE_MS): a node whose database check is slow answers
 * for itself, and a node that is ready but starved of CPU on a loaded host is not read as gone.
 */
const PROBE_TIMEOUT_MS = 2_000;

/** Connection-level headers are the balancer's own on each side; they are not forwarded. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];
const endToEnd = (headers: IncomingHttpHeaders): IncomingHttpHeaders => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.includes(name)));

function probe(url: string, timeoutMs: number): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    // A fresh connection each time, as a balancer's health check: never a pooled one that hides a closed listener.
    const asked = get(`${url}/readyz`, { agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode === 200) return resolve('ready');
        try {
          resolve((JSON.parse(Buffer.concat(chunks).toString()) as { status?: string }).status === 'draining' ? 'draining' : 'not_ready');
        } catch {
          resolve('not_ready');
        }
      });
      res.on('error', () => resolve('error'));
    });
    asked.on('timeout', () => asked.destroy(new Error('probe timed out')));
    asked.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? 'refused' : 'error'));
  });
}

export async function startRoundRobinProxy(nodeUrls: string[], options: { pollMs?: number } = {}): Promise<RoundRobinProxy> {
  const pollMs = options.pollMs ?? 100;
  const agent = new Agent({ keepAlive: true });
  let closed = false;
  const nodes = nodeUrls.map((url) => {
    let ready = false;
    let failedInARow = 0;
    const probes: BalancedNode['probes'] = [];
    const loop = (async () => {
      while (!closed) {
        const outcome = await probe(url, PROBE_TIMEOUT_MS);
        probes.push({ at: Date.now(), outcome });
        // As a balancer's failure threshold of 2: one slow check on a busy machine does not take a node out.
        failedInARow = outcome === 'ready' ? 0 : failedInARow + 1;
        if (outcome === 'ready') ready = true;
        else if (failedInARow >= FAILURE_THRESHOLD) ready = false;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    })();
    return { url, probes, ready: () => ready, loop };
  });
  const failures: RoundRobinProxy['failures'] = [];
  let next = 0;
  const pick = (): BalancedNode | null => {
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[(next + i) % nodes.length]!;
      if (node.ready()) {
        next = (next + i + 1) % nodes.length;
        return node;
      }
    }
    return null;
  };

  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const node = pick();
    const fail = (error: string) => {
      failures.push({ at: Date.now(), node: node?.url ?? null, method, path, error });
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`balancer: ${error}`);
      else res.destroy();
    };
    if (!node) {
      req.resume();
      return fail('no ready node');
    }
    const target = new URL(path, node.url);
    const upstream = request(target, { method, headers: endToEnd(req.headers), agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
      answer.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    nodes,
    failures,
    async close() {
      closed = true;
      await Promise.all(nodes.map((node) => node.loop));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      agent.destroy();
    },
  };
}
