// The TypeScript SDK's client (its latest, 1.32.2, speaks up to 2025-11-25) against the fleet of
// tests/fleet/: three `fleet_server` replicas behind haproxy, over streamable HTTP. Run by
// tests/fleet/test_fleet.py (`typescript_client`), which starts the fleet (keep-alive every
// 500 ms) and names it in `FLEET_URL`.
//
// - The session stays on its replica, and the booking asked there completes.
// - A slow person: the user answers after 6 s, the client's request timeout is 2 s. With
//   `resetTimeoutOnProgress` the keep-alive through the load balancer keeps the call open and
//   it gets the answer; without it, the client gives up at its own limit (-32001).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

const url = process.env.FLEET_URL;
const BOOKING = { party_size: 4, date: '2026-12-24' };
const TIMEOUT_MS = 2000;

async function connect(answerAfterMs) {
  assert.ok(url, 'FLEET_URL names the load balancer');
  const client = new Client(
    { name: 'fleet-ts', version: '0.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async () => {
    await sleep(answerAfterMs);
    return { action: 'accept', content: BOOKING };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function bookTable(client, options) {
  return client.callTool({ name: 'book_table', arguments: {} }, CallToolResultSchema, options);
}

test('a session books through the load balancer, asked and answered on its replica', async () => {
  const client = await connect(0);
  try {
    for (let i = 0; i < 3; i++) {
      const result = await bookTable(client);
      assert.equal(result.isError ?? false, false);
      assert.match(result.content[0].text, /^A table for 4 on 2026-12-24 \(booked on r[123]\)\.$/);
    }
  } finally {
    await client.close();
  }
});

test('a slow person: with resetTimeoutOnProgress the call outlives its timeout', async () => {
  const client = await connect(6000);
  try {
    const progress = [];
    const result = await bookTable(client, {
      timeout: TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: (note) => progress.push(note),
    });
    assert.equal(result.isError ?? false, false);
    assert.match(result.content[0].text, /^A table for 4 on 2026-12-24/);
    assert.ok(progress.length >= 8, `progress: ${JSON.stringify(progress)}`);
    progress.forEach((note, i) => {
      if (i > 0) assert.ok(note.progress > progress[i - 1].progress, 'strictly rising');
    });
  } finally {
    await client.close();
  }
});

test('a slow person: without it the client gives up at its own limit (-32001)', async () => {
  const client = await connect(6000);
  try {
    await assert.rejects(
      bookTable(client, { timeout: TIMEOUT_MS, onprogress: () => {} }),
      (error) => error instanceof McpError && error.code === ErrorCode.RequestTimeout,
    );
  } finally {
    await client.close();
  }
});
