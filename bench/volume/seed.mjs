/**
 * A merchant's volume, seeded with SQL (`generate_series`): payments numbered
 * `from + 1 … to` of one environment, with their events, webhook deliveries
 * (and attempts), refunds and subscriptions. Used by the volume benchmark
 * (bench/volume.mjs) and by the export-at-volume test, so both measure the
 * same rows. Inserting straight into the tables takes seconds per 100,000
 * rows; a million /v1 creates would take hours and measure nothing of a list.
 *
 * Every value is derived from the row's number `g` by hashing (`hashtext`),
 * so a size is reproducible and growing from 10k to 500k adds rows 10,001 to
 * 500,000 without touching the first ones. Rows are spread uniformly over the
 * 23 days before `now` (whatever the size), in whole milliseconds as the
 * service writes times. Proportions (a sandbox's, roughly): 70 % paid,
 * 60 % Pix; one event per payment; one delivery per 5 events; one refund per
 * 25 paid payments; one subscription per 10 payments. Nothing is left for the
 * background jobs to do: events are dispatched, deliveries are SENT or FAILED,
 * nothing is due for reconciliation, subscriptions bill weeks from now.
 */

export const SPREAD_DAYS = 23;
/** Payments (and events) per statement: bounded memory and WAL per statement, and progress to print. */
const CHUNK = 200_000;

const FIRST = ['João', 'Joao', 'José', 'Maria', 'Ana', 'Antônio', 'Francisco', 'Luíza', 'Lúcia', 'Paulo', 'Pedro', 'Carlos', 'Fernanda',
  'Juliana', 'Márcia', 'Rafael', 'Gabriel', 'Beatriz', 'Letícia', 'Thiago', 'Camila', 'Bruno', 'Aline', 'Sérgio', 'Patrícia', 'Renato',
  'Vitória', 'Conceição', 'Raimundo', 'Helena', 'Joaquim', 'Cecília'];
const LAST = ['Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes', 'Costa', 'Ribeiro',
  'Martins', 'Carvalho', 'Araújo', 'Melo', 'Barbosa', 'Cardoso', 'Conceição', 'Nascimento', 'Magalhães', 'Simões', 'Assunção',
  'Müller', 'Tanaka', 'Jesus', 'Rocha', 'Dias'];
const DOMAINS = ['gmail.com', 'hotmail.com', 'outlook.com', 'yahoo.com.br', 'uol.com.br', 'bol.com.br', 'icloud.com', 'empresa.com.br'];
/** Prices merchants use, in cents; the rest of the amounts are spread from R$ 5.00 to R$ 1,500.00. */
const PRICES = [990, 1990, 2490, 2990, 4990, 7990, 9990, 14990, 19990, 29990];

const list = (values) => `array[${values.map((v) => (typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`)).join(',')}]`;
const pick = (values, hash) => `(${list(values)})[1 + (${hash}) % ${values.length}]`;
/** ASCII of a name for an e-mail address. */
const ascii = (expr) => `lower(translate(${expr}, 'áàãâéêíóôõúüçÁÉÍÓÚÂÊÔÃÕÇ', 'aaaaeeiooouucAEIOUAEOAOC'))`;
/** A uniform hash of the row number and a salt, as a non-negative integer. */
const hash = (g, salt) => `abs(hashtext(${g} || '${salt}')::bigint)`;

/**
 * The payments numbered `$2 + 1 … $3` of environment `$1`, seeded at `$4` (an
 * instant), one row each with every column and the row number `g` beside them.
 */
function paymentRows() {
  return `
  select g, id, external_id, method, gateway, amount, status, customer_name, customer_email, created_at,
         case when status = 'paid' and g % 25 = 0 and g % 250 <> 0 then amount else 0 end as amount_refunded,
         case when status = 'paid' then created_at + (r % 600 + 5) * interval '1 second' end as paid_at,
         case when status = 'paid' then created_at + (r % 600 + 5) * interval '1 second' else created_at + (r % 7200) * interval '1 second' end as updated_at,
         case when method = 'pix' then created_at + interval '1 hour' end as expires_at,
         case when method = 'pix' and gateway = 'gateway_a' then 'https://sandbox.gateway-a.example/pix/' || id || '/qr.png'
              when method = 'pix' then 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAQAAAAEAAQMAAABmvDolAAAABlBMVEX///8AAABVwtN+' || repeat(md5(id), 36) end as pix_qr_code,
         case when method = 'pix' then '00020126580014br.gov.bcb.pix0136' || substr(md5(id || 'key'), 1, 8) || '-' || substr(md5(id || 'key'), 9, 4) || '-4' || substr(md5(id || 'key'), 13, 3) || '-a' || substr(md5(id || 'key'), 16, 3) || '-' || substr(md5(id || 'key'), 19, 12)
              || '5204000053039865406' || lpad((amount / 100.0)::numeric(12, 2)::text, 6, '0') || '5802BR5913LOJA EXEMPLO6009SAO PAULO62290525' || substr(md5(id), 1, 25) || '6304' || upper(substr(md5(id || 'crc'), 1, 4)) end as pix_qr_code_text
    from (
      select g, r, 'pay_' || substr(md5('pay' || g), 1, 24) as id, 'order-' || g as external_id, method,
             case when method = 'pix' then ${pick(['gateway_a', 'gateway_b'], 'r / 7')} else ${pick(['gateway_b', 'gateway_c'], 'r / 7')} end as gateway,
             case when r % 10 < 3 then ${pick(PRICES, 'r / 11')} else 500 + (r / 13) % 149500 end as amount,
             case when r % 100 < 70 then 'paid' when r % 100 < 80 then 'pending' when r % 100 < 88 then 'failed' when r % 100 < 95 then 'expired'
                  when r % 100 < 98 then 'canceled' when r % 100 < 99 then 'processing' else 'created' end as status,
             first || ' ' || last as customer_name,
             ${ascii('first')} || '.' || replace(${ascii('last')}, ' ', '.') || (g % 997) || '@' || ${pick(DOMAINS, 'r / 17')} as customer_email,
             date_trunc('milliseconds', $4::timestamptz) - (${hash('g', 't')} % ${SPREAD_DAYS * 86_400_000}) * interval '1 millisecond' as created_at
        from (
          select g, ${hash('g', 'r')} as r, case when ${hash('g', 'm')} % 10 < 6 then 'pix' else 'card' end as method,
                 ${pick(FIRST, hash('g', 'f'))} as first,
                 ${pick(LAST, hash('g', 'l'))} || case when ${hash('g', 'l2')} % 3 = 0 then ' ' || ${pick(LAST, hash('g', 'l3'))} else '' end as last
            from generate_series($2::bigint + 1, $3::bigint) g
        ) numbered
    ) p`;
}

const insertPayments = `
  insert into payments (id, environment_id, external_id, method, gateway, amount, currency, installments, status, gateway_ref, pix_qr_code, pix_qr_code_text,
                        card_brand, card_last4, customer_name, customer_email, customer_document_last4, metadata, gateway_status, request_hash,
                        created_at, updated_at, paid_at, expires_at, amount_refunded)
  select id, $1, external_id, method, gateway, amount, 'BRL', case when method = 'card' then 1 + g % 6 else 1 end, status,
         case gateway when 'gateway_a' then 'pa_' when 'gateway_b' then 'ch_' else 'txn_' end || substr(md5(id || 'ref'), 1, 20),
         pix_qr_code, pix_qr_code_text,
         case when method = 'card' then ${pick(['visa', 'mastercard', 'elo', 'amex', 'hipercard'], 'g')} end,
         case when method = 'card' then lpad((g % 10000)::text, 4, '0') end,
         customer_name, customer_email, lpad((g * 7 % 10000)::text, 4, '0'),
         jsonb_build_object('orderId', external_id, 'channel', ${pick(['web', 'app', 'pos'], 'g')}),
         case status when 'paid' then 'approved' when 'failed' then 'refused' when 'pending' then 'waiting_payment' else status end,
         md5(id) || md5(external_id), created_at, updated_at, paid_at, expires_at, amount_refunded
    from (${paymentRows()}) p`;

/** One event per payment (its latest change), already dispatched; one in five delivered to the endpoint `$5`, each with its attempt. */
const insertEvents = `
  with rows as (${paymentRows()}),
  inserted as (
    insert into events (id, environment_id, type, resource_id, data, created_at, dispatched_at)
    select 'evt_' || substr(md5('evt' || g), 1, 24), $1,
           'payment.' || case when status in ('created', 'processing') then 'created' else status end, id,
           jsonb_build_object('id', id, 'object', 'payment', 'externalId', external_id, 'status', status, 'method', method, 'gateway', gateway,
                              'amount', amount, 'amountRefunded', amount_refunded, 'currency', 'BRL',
                              'customer', jsonb_build_object('name', customer_name, 'email', customer_email),
                              'pix', case when pix_qr_code_text is not null then jsonb_build_object('qrCodeText', pix_qr_code_text) end,
                              'paidAt', paid_at, 'createdAt', created_at),
           updated_at, updated_at
      from rows
    returning id, sequence, type, data, created_at
  ),
  delivered as (
    insert into webhook_deliveries (id, endpoint_id, event_id, environment_id, event_type, event_sequence, status, attempt_count, body,
                                    signed_timestamp, signature, last_attempt_at, created_at, updated_at)
    select 'wd_' || substr(md5('wd' || id), 1, 24), $5, id, $1, type, sequence, case when abs(hashtext(id)) % 100 < 3 then 'FAILED' else 'SENT' end, 1,
           jsonb_build_object('id', id, 'type', type, 'createdAt', created_at, 'data', data)::text,
           extract(epoch from created_at)::bigint, 'v1,' || encode(sha256(convert_to(id, 'UTF8')), 'base64'),
           created_at + interval '1 second', created_at, created_at + interval '1 second'
      from inserted
     where abs(hashtext(id || 'd')) % 5 = 0
    returning id, status, last_attempt_at
  )
  insert into webhook_attempts (delivery_id, number, trigger, started_at, finished_at, outcome, response_status, duration_ms, response_excerpt)
  select id, 1, 'dispatch', last_attempt_at, last_attempt_at + interval '80 milliseconds', status,
         case status when 'SENT' then 200 else 503 end, 80, case status when 'SENT' then '{"received":true}' else 'Service Unavailable' end
    from delivered`;

/** A refund of one paid payment in 25 (one in ten of them failed, so the payment keeps its amount). */
const insertRefunds = `
  insert into refunds (id, environment_id, payment_id, external_id, gateway, amount, reason, status, gateway_ref, gateway_status, request_hash, created_at, updated_at)
  select 'ref_' || substr(md5('ref' || g), 1, 24), $1, id, 'refund-' || g, gateway, amount, ${pick(['requested_by_customer', 'duplicate', 'fraudulent'], 'g / 25')},
         case when g % 250 = 0 then 'failed' else 'succeeded' end, 're_' || substr(md5(id || 're'), 1, 20),
         case when g % 250 = 0 then 'refused' else 'refunded' end, md5(id || 'rh') || md5(id || 'rh2'),
         paid_at + interval '2 hours', paid_at + interval '2 hours'
    from (${paymentRows()}) p
   where status = 'paid' and g % 25 = 0`;

/** Subscriptions numbered `$2 / 10 + 1 … $3 / 10`: a tenth of the payments. */
const insertSubscriptions = `
  insert into subscriptions (id, environment_id, external_id, gateway, amount, currency, interval, status, next_billing_at, canceled_at, gateway_ref,
                             customer_name, customer_email, customer_document_last4, gateway_status, created_event_recorded, request_hash, created_at, updated_at)
  select id, $1, 'plan-' || g, ${pick(['gateway_a', 'gateway_b', 'gateway_c'], 'r')}, ${pick([1990, 2990, 4990, 9990, 19990, 59900], 'r / 3')}, 'BRL',
         case when r % 5 = 0 then 'yearly' else 'monthly' end, status,
         case when status <> 'canceled' then $4::timestamptz + (7 + r % 21) * interval '1 day' end,
         case when status = 'canceled' then created_at + interval '3 days' end,
         'sub_gw_' || substr(md5(id), 1, 20), customer_name, customer_email, lpad((g * 3 % 10000)::text, 4, '0'), status, true, md5(id) || md5(id || 's'),
         created_at, created_at + interval '1 minute'
    from (
      select g, r, 'sub_' || substr(md5('sub' || g), 1, 24) as id,
             case when r % 100 < 75 then 'active' when r % 100 < 80 then 'trialing' when r % 100 < 85 then 'past_due' else 'canceled' end as status,
             ${pick(FIRST, hash('g', 'sf'))} || ' ' || ${pick(LAST, hash('g', 'sl'))} as customer_name,
             'cliente' || g || '@' || ${pick(DOMAINS, 'r / 7')} as customer_email,
             date_trunc('milliseconds', $4::timestamptz) - (${hash('g', 'st')} % ${SPREAD_DAYS * 86_400_000}) * interval '1 millisecond' as created_at
        from (select g, ${hash('g', 'sr')} as r from generate_series($2::bigint / 10 + 1, $3::bigint / 10) g) numbered
    ) s`;

/**
 * The webhook endpoint the seeded deliveries went to: made here, disabled, so
 * the service's dispatcher never sends to it (its secret is never read).
 */
export async function seedEndpoint(client, environmentId) {
  const id = `wh_volume_${environmentId.slice(-12)}`;
  await client.query(
    `insert into webhook_endpoints (id, environment_id, url, enabled_events, enabled, description, secret_sealed, created_at, updated_at)
     values ($1, $2, 'https://hooks.loja-exemplo.com.br/payments', '["*"]', false, 'volume benchmark', 'unused', now(), now())
     on conflict (id) do nothing`,
    [id, environmentId],
  );
  return id;
}

/**
 * Grows environment `environmentId` from `from` payments (the ones an earlier call
 * seeded) to `to`. `endpointId`: a webhook endpoint of that environment for the
 * deliveries; without one, only payments are seeded (the export test needs no more).
 * `client`: a connected `pg` client. `progress(done)` after each chunk.
 */
export async function seedVolume(client, { environmentId, from = 0, to, now = new Date(), endpointId = null, progress = () => {} }) {
  for (let lo = from; lo < to; lo += CHUNK) {
    const hi = Math.min(to, lo + CHUNK);
    const params = [environmentId, lo, hi, now.toISOString()];
    await client.query(insertPayments, params);
    if (endpointId) {
      await client.query(insertEvents, [...params, endpointId]);
      await client.query(insertRefunds, params);
      await client.query(insertSubscriptions, params);
    }
    progress(hi);
  }
}
