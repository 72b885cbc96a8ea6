// The TypeScript SDK v2's client (`@modelcontextprotocol/client`, pinned in package-lock.json),
// which speaks 2026-07-28 and drives its input-required rounds itself, against the fleet of
// tests/fleet/: three `fleet_server` replicas behind haproxy, over streamable HTTP. Run by
// tests/fleet/test_fleet.py (`typescript_v2_client`), which starts the fleet and names it in
// `FLEET_URL`.
//
// - A form: the SDK's driver answers the input-required result through the client's own
//   `elicitation/create` handler and retries; the retry lands on another replica than the round
//   that asked, and completes there.
// - URL mode: the user's browser (an HTTP client with a cookie jar, posting the page's form with
//   its CSRF token) finishes the page on one replica; the client's retry lands on another, and
//   the tool reads the key's ending. Twice: the page finished before the client answers
//   `accept`, and the `accept` sent first, the page finished while that retry waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = process.env.FLEET_URL;
const BOOKING = { party_size: 4, date: '2026-12-24' };

/** Every HTTP exchange the client made through haproxy: the JSON-RPC method and the replica
 * that answered (haproxy's `X-Replica`). */
class Wire {
  constructor() {
    this.exchanges = [];
  }

  fetch = async (input, init) => {
    let method = '';
    if (init?.method === 'POST' && typeof init.body === 'string') {
      try {
        method = JSON.parse(init.body).method ?? '';
      } catch {
        method = '?';
      }
    }
    const response = await fetch(input, init);
    this.exchanges.push({ method, replica: response.headers.get('x-replica') ?? '' });
    return response;
  };

  replicas(method) {
    return this.exchanges.filter((e) => e.method === method).map((e) => e.replica);
  }
}

async function connect(answer) {
  assert.ok(url, 'FLEET_URL names the load balancer');
  const wire = new Wire();
  const client = new Client(
    { name: 'fleet-ts-v2', version: '0.0.0' },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => answer(request.params));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: wire.fetch }));
  return { client, wire };
}

function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// ------------------------------------------------------------------------- the user's browser

/** One request to the page through haproxy, pinned to `replica` (`X-Fleet-Replica`), on
 * 127.0.0.1 with the page's own `Host` (the URL names `localhost`, which may resolve to ::1,
 * where nothing listens). */
function request(pageUrl, { method = 'GET', headers = {}, body } = {}) {
  const target = new URL(pageUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: target.pathname + target.search,
        method,
        headers: { host: target.host, ...headers },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
      },
    );
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error(`${method} ${pageUrl}: no answer in 10 s`)));
    if (body) req.write(body);
    req.end();
  });
}

/** What the user does on `replica`: open the page, type the key, save. */
async function finishPage(pageUrl, replica, key) {
  const pin = { 'x-fleet-replica': replica };
  const page = await request(pageUrl, { headers: pin });
  assert.equal(page.status, 200, page.body);
  const csrf = /name="_csrf"[^>]*value="([^"]+)"/.exec(page.body)
    ?? /value="([^"]+)"[^>]*name="_csrf"/.exec(page.body);
  assert.ok(csrf, `the page's form carries a CSRF token: ${page.body}`);
  const cookies = (page.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  const form = new URLSearchParams({ _csrf: csrf[1], key }).toString();
  const saved = await request(pageUrl, {
    method: 'POST',
    headers: {
      ...pin,
      cookie: cookies,
      origin: new URL(pageUrl).origin,
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': Buffer.byteLength(form),
    },
    body: form,
  });
  assert.equal(saved.status, 200, saved.body);
  assert.match(saved.body, /Saved/);
}

function newKey() {
  const letters = 'ghjkmnpqrstuvwxyzGHJKMNPQRSTUVWXYZ';
  let key = 'exco_';
  for (let i = 0; i < 27; i++) key += letters[Math.floor(Math.random() * letters.length)];
  return key;
}

// ------------------------------------------------------------------------------------- cases

test('a form: the SDK answers the input-required result, the retry completes on another replica', async () => {
  const asked = [];
  const { client, wire } = await connect(async (params) => {
    asked.push(params);
    return { action: 'accept', content: BOOKING };
  });
  try {
    assert.equal(client.getNegotiatedProtocolVersion?.() ?? '2026-07-28', '2026-07-28');
    const result = await client.callTool({ name: 'book_table', arguments: {} });
    assert.equal(result.isError ?? false, false, text(result));
    assert.match(text(result), /^A table for 4 on 2026-12-24 \(booked on r[123]\)\.$/);
    assert.equal(asked.length, 1);
    assert.equal(asked[0].mode ?? 'form', 'form');
    const [first, retry, ...more] = wire.replicas('tools/call');
    assert.deepEqual(more, [], JSON.stringify(wire.exchanges));
    assert.notEqual(first, retry, JSON.stringify(wire.exchanges));
    assert.ok(text(result).endsWith(`(booked on ${retry}).`), text(result));
  } finally {
    await client.close();
  }
});

for (const when of ['before', 'after']) {
  const title = when === 'before'
    ? 'URL mode: the page finished on one replica, then accept; the retry reads it on another'
    : 'URL mode: accept first; the retry waits on another replica while the page is finished';
  test(title, async () => {
    const key = newKey();
    const urls = [];
    const pages = [];
    let browsing;
    let wire;
    const { client, wire: w } = await connect(async (params) => {
      assert.equal(params.mode, 'url', JSON.stringify(params));
      urls.push(params.url);
      if (urls.length === 1) {
        // The page on the replica that asked: the retry, round robin, goes to another.
        const asked = wire.replicas('tools/call').at(-1);
        pages.push(asked);
        if (when === 'before') {
          await finishPage(params.url, asked, key);
        } else {
          browsing = sleep(1000).then(() => finishPage(params.url, asked, key));
        }
      }
      return { action: 'accept' };
    });
    wire = w;
    try {
      const started = Date.now();
      const result = await client.callTool({ name: 'connect_api_key', arguments: {} });
      await browsing;
      assert.equal(result.isError ?? false, false, text(result));
      assert.match(text(result), new RegExp(`^Connected the key ending ${key.slice(-4)} \\(asked on r[123]\\)\\.$`));
      // One question, one retry: the accept that came before the page was waited for, not
      // answered with a re-ask.
      assert.equal(urls.length, 1, `asked ${urls.length} times: ${urls.join(', ')}`);
      const calls = wire.replicas('tools/call');
      assert.equal(calls.length, 2, JSON.stringify(wire.exchanges));
      const [page] = pages;
      assert.notEqual(calls[1], page, `the retry landed on the page's replica: ${JSON.stringify(calls)}`);
      if (when === 'after') assert.ok(Date.now() - started >= 1000, 'the retry waited for the page');
    } finally {
      await client.close();
    }
  });
}
