/**
 * How the service serves the dashboard's production build under /dashboard/:
 * deep links get the app's page (never cached), hashed assets are cached
 * for good, every answer carries a strict policy, text files go out
 * compressed as the build left them (brotli, gzip or plain, as the browser
 * accepts), and a missing build is a clear 503 rather than a failure.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedEncodings, dashboardStatic } from '../../server/http/dashboard-static';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { buildDashboard } from '../support/browser';

let service: TestService;

beforeAll(async () => {
  buildDashboard();
  service = await startTestService();
}, 90_000);
afterAll(async () => {
  await service?.stop();
});

describe('the dashboard under /dashboard/', () => {
  it('redirects /dashboard to /dashboard/, keeping the query', async () => {
    const reply = await fetch(`${service.url}/dashboard?x=1`, { redirect: 'manual' });
    expect(reply.status).toBe(301);
    expect(reply.headers.get('location')).toBe('/dashboard/?x=1');
  });

  it('answers every page of the app, deep links included, with index.html, uncached, under a strict policy', async () => {
    for (const path of ['/dashboard/', '/dashboard/e/env_123/payments/pay_456', '/dashboard/invitation']) {
      const page = await call(service.url, 'GET', path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.headers.get('cache-control')).toBe('no-store');
      const policy = page.headers.get('content-security-policy')!;
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("connect-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.text).toContain('<div id="root">');
      // No inline script: every <script> names its source on this origin.
      expect(page.text).not.toMatch(/<script(?![^>]*\bsrc="\/dashboard\/assets\/)[^>]*>/);
    }
  });

  it('caches hashed assets for a year, and a missing one is a plain 404', async () => {
    const asset = readdirSync('dist/dashboard/assets').find((name) => name.endsWith('.js'))!;
    const reply = await fetch(`${service.url}/dashboard/assets/${asset}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/javascript/);
    expect(reply.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
    const missing = await call(service.url, 'GET', '/dashboard/assets/gone-123.js');
    expect(missing.status).toBe(404);
    expect(missing.text).not.toContain('<div id="root">');
  });

  it('sends a script as brotli, gzip or plain as the browser accepts, the same bytes once decoded, with its own type and cache', async () => {
    // The largest script: the build writes both copies for it, and they are much smaller.
    const asset = readdirSync('dist/dashboard/assets')
      .filter((name) => name.endsWith('.js'))
      .sort((a, b) => statSync(`dist/dashboard/assets/${b}`).size - statSync(`dist/dashboard/assets/${a}`).size)[0]!;
    const plain = readFileSync(`dist/dashboard/assets/${asset}`);
    const path = `/dashboard/assets/${asset}`;

    const br = await raw(service.url, path, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['content-type']).toMatch(/^text\/javascript/);
    expect(br.headers['cache-control']).toMatch(/max-age=31536000.*immutable/);
    expect(br.headers['content-security-policy']).toContain("script-src 'self'");
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(plain.length / 2);
    expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);

    // Brotli refused, or only gzip offered: gzip, a different entity (its own ETag).
    for (const accept of ['gzip', 'br;q=0, gzip', 'gzip;q=1, br;q=0.5']) {
      const gz = await raw(service.url, path, { 'accept-encoding': accept });
      expect(gz.headers['content-encoding'], accept).toBe('gzip');
      expect(gz.headers['content-type']).toMatch(/^text\/javascript/);
      expect(gunzipSync(gz.body).equals(plain)).toBe(true);
      expect(gz.headers.etag).not.toBe(br.headers.etag);
    }

    // No Accept-Encoding, identity only, or everything refused: the plain file.
    for (const accept of [undefined, 'identity', 'br;q=0, gzip;q=0', 'compress']) {
      const identity = await raw(service.url, path, accept === undefined ? {} : { 'accept-encoding': accept });
      expect(identity.headers['content-encoding'], accept).toBeUndefined();
      expect(identity.headers.vary).toMatch(/accept-encoding/i);
      expect(identity.body.equals(plain)).toBe(true);
    }
  });

  it('answers HEAD and byte ranges of the compressed copy it chose', async () => {
    const asset = readdirSync('dist/dashboard/assets').find((name) => name.endsWith('.css'))!;
    const path = `/dashboard/assets/${asset}`;
    const gzSize = statSync(`dist/dashboard/assets/${asset}.gz`).size;

    const head = await raw(service.url, path, { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers['content-type']).toMatch(/^text\/css/);
    expect(Number(head.headers['content-length'])).toBe(gzSize);
    expect(head.body.length).toBe(0);

    const part = await raw(service.url, path, { 'accept-encoding': 'gzip', range: 'bytes=0-9' });
    expect(part.status).toBe(206);
    expect(part.headers['content-encoding']).toBe('gzip');
    expect(part.headers['content-range']).toBe(`bytes 0-9/${gzSize}`);
    expect(part.body.equals(readFileSync(`dist/dashboard/assets/${asset}.gz`).subarray(0, 10))).toBe(true);
  });

  it('sends the page compressed too, still never cached and under its policy', async () => {
    const plain = readFileSync('dist/dashboard/index.html');
    const br = await raw(service.url, '/dashboard/e/env_1/payments', { 'accept-encoding': 'br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/text\/html/);
    expect(br.headers['cache-control']).toBe('no-store');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);
    const identity = await raw(service.url, '/dashboard/', {});
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(plain)).toBe(true);
    const head = await raw(service.url, '/dashboard/', { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.body.length).toBe(0);
  });

  it('reads Accept-Encoding as the browser means it: q-values, a refusal with q=0, and *', () => {
    const names = (header: string | undefined) => acceptedEncodings(header).map((e) => e.name);
    expect(names('gzip, deflate, br, zstd')).toEqual(['br', 'gzip']);
    expect(names('gzip;q=1.0, br;q=0.8')).toEqual(['gzip', 'br']);
    expect(names('br;q=0, gzip')).toEqual(['gzip']);
    expect(names('*')).toEqual(['br', 'gzip']);
    expect(names('*;q=0.5, gzip;q=0')).toEqual(['br']);
    expect(names('identity')).toEqual([]);
    expect(names(undefined)).toEqual([]);
    expect(names('BR ; Q=0.9')).toEqual(['br']);
  });

  it('answers 503 saying to run the build when there is no build', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-dashboard-'));
    const app = express().use(dashboardStatic(empty));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = await call(url, 'GET', '/dashboard/e/env_1/payments');
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.text).toContain('npm run build');
    } finally {
      server.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

/** A request with exactly these headers, the body as sent (fetch would ask for and undo compression by itself). */
function raw(baseUrl: string, path: string, headers: Record<string, string>, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers as Record<string, string | undefined>, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
