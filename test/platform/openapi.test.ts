import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../server/contract/errors';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';

let service: TestService;
let document: any;

beforeAll(async () => {
  service = await startTestService();
  document = (await call(service.url, 'GET', '/v1/openapi.json')).body;
});
afterAll(() => service?.stop());

describe('the published contract', () => {
  it('is valid OpenAPI 3.1 by a standard validator', async () => {
    expect(document.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeTruthy();
  });

  it('is served as YAML with the same content, without authentication', async () => {
    const yaml = await call(service.url, 'GET', '/v1/openapi.yaml');
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toMatch(/yaml/);
    expect(parseYaml(yaml.text)).toEqual(document);
  });

  it('documents the v1 routes with their success statuses', () => {
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/health', '/v1/auth/test', '/v1/payments', '/v1/subscriptions']));
    expect(Object.keys(document.paths['/v1/payments'].post.responses)).toContain('201');
    expect(Object.keys(document.paths['/v1/payments'].post.responses)).not.toContain('200');
    expect(document.paths['/v1/health'].get.security ?? []).toEqual([]);
    expect(document.paths['/v1/auth/test'].get.security).toEqual([{ bearerAuth: [] }]);
  });

  it('has one error body and names each route’s error codes by status', () => {
    const errorSchema = document.components.schemas.ErrorResponse;
    expect(errorSchema.properties.error.enum.sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
    expect(Object.keys(document.components.schemas).filter((name) => name.startsWith('error.'))).toEqual([]);
    const responses = document.paths['/v1/payments'].post.responses;
    const codesAt = (status: string) => responses[status].content['application/json'].schema.allOf[1].properties.error.enum;
    expect(codesAt('400')).toEqual(['invalid_json', 'invalid_input']);
    expect(codesAt('402')).toContain('billing_monthly_tx_limit_reached');
    expect(codesAt('409')).toEqual(['no_routing_rule', 'provider_not_configured', 'provider_disabled', 'method_not_supported']);
    expect(Object.keys(responses['429'].headers)).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    expect(Object.keys(responses['201'].headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-Request-Id']));
  });

  it('requires the API key at the root, lifts it on /v1/health, and documents tags, server, licence and contact', () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.paths['/v1/health'].get.security).toEqual([]);
    expect(document.servers).toEqual([{ url: expect.stringMatching(/^https?:\/\//), description: expect.any(String) }]);
    expect(document.info.license.name).toBeTruthy();
    expect(document.info.contact.url).toBe(`${document.servers[0].url}/docs`);
    const tags = document.tags.map((t: { name: string; description: string }) => (expect(t.description).toBeTruthy(), t.name));
    for (const item of Object.values<any>(document.paths)) for (const op of Object.values<any>(item)) expect(tags).toEqual(expect.arrayContaining(op.tags));
  });

  it('documents a client error on every operation but the health check (why redocly.yaml turns that rule off)', () => {
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const operation of Object.values<any>(item)) {
        if (path === '/v1/health') continue;
        expect(Object.keys(operation.responses).some((status) => status.startsWith('4')), path).toBe(true);
      }
    }
  });

  it('names the request bodies and the JSON value', () => {
    expect(document.paths['/v1/payments'].post.requestBody).toEqual({ $ref: '#/components/requestBodies/CreatePaymentRequest' });
    expect(document.components.requestBodies.CancelSubscriptionRequest.required).toBe(false);
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['CreatePaymentRequest', 'CreateSubscriptionRequest', 'CancelSubscriptionRequest', 'JsonValue']));
    expect(JSON.stringify(document)).not.toContain('__schema');
  });

  it('closes every request body, as the service refuses unknown fields (decision 12), and states what the resources really carry', () => {
    for (const name of ['CreatePaymentRequest', 'CreateSubscriptionRequest', 'CancelSubscriptionRequest']) {
      expect(document.components.schemas[name].additionalProperties, name).toBe(false);
    }
    const { Payment: payment, Subscription: subscription, Event: event } = document.components.schemas;
    expect(payment.properties.id.pattern).toBe('^pay_[0-9a-z]{24}$');
    expect(subscription.properties.id.pattern).toBe('^sub_[0-9a-z]{24}$');
    expect(event.properties.id.pattern).toBe('^evt_[0-9a-z]{24}$');
    expect(payment.properties.amount.minimum).toBe(0);
    expect(subscription.properties.amount.exclusiveMinimum).toBe(0);
    const pix = payment.properties.pix.anyOf.find((branch: { type: string }) => branch.type === 'object');
    expect(pix.properties).toEqual({ qrCode: { type: 'string' }, qrCodeText: { type: 'string' } });
    expect(subscription.properties.createdAt.format).toBe('date-time');
  });

  it('documents invalid_json and invalid_input on every POST route and invalid_input on the externalId lookups', () => {
    const codesAt = (path: string, method: string) => document.paths[path][method].responses['400'].content['application/json'].schema.allOf[1].properties.error.enum;
    for (const [path, item] of Object.entries<any>(document.paths)) {
      if (item.post) expect(codesAt(path, 'post'), path).toEqual(expect.arrayContaining(['invalid_json', 'invalid_input']));
    }
    expect(codesAt('/v1/payments', 'get')).toEqual(expect.arrayContaining(['missing_query', 'invalid_input']));
    expect(codesAt('/v1/subscriptions', 'get')).toEqual(expect.arrayContaining(['missing_query', 'invalid_input']));
    expect(document.paths['/v1/payments/{id}/sync'].post.description).toContain('Never 501 `not_implemented`');
    expect(document.paths['/v1/subscriptions'].post.description).toContain('Never 409 `action_not_implemented`');
    expect(document.paths['/v1/subscriptions/{id}/cancel'].post.description).toContain('Never 409 `action_not_implemented`');
  });

  it('states the readings of the contract', () => {
    const description: string = document.info.description;
    for (const phrase of ['Error bodies', 'Payment cancel', 'Subscription initial status', 'Precedence', 'Rate-limit headers', 'Repeated `externalId`', 'Metadata rules', '`currency`', 'Outbound event `provider`', 'Webhook delivery', 'Routing fallback']) {
      expect(description).toContain(phrase);
    }
  });

  it('describes the Payment with every field of the contract, its timestamps, its subscription (decision 20) and its refunded total (decision 18)', () => {
    const payment = document.components.schemas.Payment;
    const fields = ['id', 'status', 'method', 'gateway', 'amount', 'currency', 'externalId', 'gatewayRef', 'customer', 'checkoutUrl', 'pix', 'card'];
    expect(Object.keys(payment.properties).sort()).toEqual([...fields, 'createdAt', 'updatedAt', 'paidAt', 'expiresAt', 'subscriptionId', 'amountRefunded'].sort());
    expect(payment.required.sort()).toEqual(Object.keys(payment.properties).sort());
  });

  it('describes refunds (decision 18): the routes, the Refund with its statuses, the 409 and 501 of the create, its rate limit', () => {
    const refund = document.components.schemas.Refund;
    expect(Object.keys(refund.properties).sort()).toEqual(
      ['id', 'paymentId', 'externalId', 'status', 'amount', 'currency', 'reason', 'gateway', 'gatewayRef', 'failureReason', 'createdAt', 'updatedAt'].sort(),
    );
    expect(refund.required.sort()).toEqual(Object.keys(refund.properties).sort());
    expect(refund.properties.status.enum).toEqual(['pending', 'succeeded', 'failed']);
    const create = document.paths['/v1/payments/{id}/refunds'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '404', '409', '429', '501', '502']));
    expect(create.responses['409'].content['application/json'].examples.cannot_refund_status.value).toMatchObject({ error: 'cannot_refund_status', status: 'pending' });
    expect(create.responses['501'].content['application/json'].schema.allOf[1].properties.error.enum).toEqual(['not_implemented']);
    expect(create.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    expect(create.requestBody.$ref).toBe('#/components/requestBodies/CreateRefundRequest');
    expect(create.description).toContain('10 per minute');
    expect(document.paths['/v1/refunds/{id}'].get.responses['200']).toBeDefined();
    expect(document.paths['/v1/refunds'].get.responses['400'].content['application/json'].schema.allOf[1].properties.error.enum).toContain('missing_query');
  });

  it('describes the Subscription with every field of the contract and its timestamps (decision 20)', () => {
    const subscription = document.components.schemas.Subscription;
    const fields = ['id', 'status', 'method', 'gateway', 'amount', 'currency', 'interval', 'trialDays', 'trialEndsAt', 'nextBillingAt', 'cancelAtPeriodEnd', 'canceledAt'];
    expect(Object.keys(subscription.properties).sort()).toEqual([...fields, 'externalId', 'gatewayRef', 'checkoutUrl', 'customer', 'createdAt', 'updatedAt'].sort());
    expect(subscription.required.sort()).toEqual(Object.keys(subscription.properties).sort());
    expect(subscription.properties.nextBillingAt.description).toContain('null once a cancel has taken effect');
    expect(document.paths['/v1/subscriptions/{id}/sync'].post.responses['200']).toBeDefined();
    expect(document.paths['/v1/subscriptions/{id}'].get.description).not.toContain('no sync');
  });
});
