/**
 * How the service serves the dashboard's production build under /dashboard/:
 * deep links get the app's page (never cached), hashed assets are cached
 * for good, every answer carries a strict policy, and a missing build is a
 * clear 503 rather than a failure.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardStatic } from '../../server/http/dashboard-static';
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
