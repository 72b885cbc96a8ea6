// The TypeScript SDK's client against `keep_alive_server` (the booking example with a 500 ms
// keep-alive) over stdio, on 2025-11-25. The user answers `book_table`'s form after 6 s; the
// client's request timeout is 2 s.
//
// - With `resetTimeoutOnProgress`, each keep-alive resets the client's timeout: it gets the
//   answer, having seen a dozen progress notifications, strictly rising.
// - Without it, the client gives up at its own limit, whatever the server sends: -32001.
//
// `KEEP_ALIVE_SERVER` names the server's binary (`.ci/ts_e2e.sh` builds it and sets it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

const server = process.env.KEEP_ALIVE_SERVER;
const ANSWER_AFTER_MS = 6000;
const TIMEOUT_MS = 2000;
const BOOKING = { party_size: 4, date: '2026-08-01', seating: 'terrace' };

/// A client whose user answers every form with BOOKING after ANSWER_AFTER_MS.
async function connect() {
  assert.ok(server, 'KEEP_ALIVE_SERVER names the server binary');
  const client = new Client(
    { name: 'keep-alive-e2e', version: '0.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async () => {
    await sleep(ANSWER_AFTER_MS);
    return { action: 'accept', content: BOOKING };
  });
  await client.connect(new StdioClientTransport({ command: server, stderr: 'inherit' }));
  return client;
}

function bookTable(client, options) {
  return client.callTool({ name: 'book_table', arguments: {} }, CallToolResultSchema, {
    timeout: TIMEOUT_MS,
    ...options,
  });
}

test('with resetTimeoutOnProgress the call outlives its timeout and gets the answer', async () => {
  const client = await connect();
  try {
    const progress = [];
    const result = await bookTable(client, {
      resetTimeoutOnProgress: true,
      onprogress: (note) => progress.push(note),
    });
    assert.equal(result.isError ?? false, false);
    assert.deepEqual(result.content, [{ type: 'text', text: 'A table for 4 on 2026-08-01.' }]);
    // One every 500 ms for 6 s: about twelve; at least ten leaves room for a slow machine.
    assert.ok(progress.length >= 10, `progress: ${JSON.stringify(progress)}`);
    progress.forEach((note, i) => {
      assert.equal(note.message, 'waiting for the user to answer');
      if (i > 0) assert.ok(note.progress > progress[i - 1].progress, 'strictly rising');
    });
  } finally {
    await client.close();
  }
});

test('without resetTimeoutOnProgress the client gives up at its own limit (-32001)', async () => {
  const client = await connect();
  try {
    const started = Date.now();
    await assert.rejects(
      bookTable(client, { onprogress: () => {} }),
      (error) => error instanceof McpError && error.code === ErrorCode.RequestTimeout,
    );
    const waited = Date.now() - started;
    assert.ok(waited < ANSWER_AFTER_MS, `gave up after ${waited} ms, before the answer`);
  } finally {
    await client.close();
  }
});
