// The MCP Inspector (npm `@modelcontextprotocol/inspector`, pinned in package-lock.json), its web
// UI in headless Chromium over WebDriver, driven as a user drives it, against this repository's
// example servers over stdio, on 2025-11-25 (`--protocol-era legacy`) and 2026-07-28
// (`--protocol-era modern`):
//
// - `examples/rmcp/booking.rs`: the form, answered with Submit, Decline and Cancel, and an
//   answer whose date breaks the form's rule, which the server asks again saying why.
// - `examples/rmcp/api_key_server.rs`: URL mode. The user opens the page from the Inspector's
//   "Open in Browser", types the key and saves. On 2025-11-25 the call finishes with no click
//   on the Inspector's "I've completed it"; on 2026-07-28 the user clicks it before saving the
//   page, and the call finishes once the page is saved, with no second click.
//
// Each run starts its own Inspector (one stdio server, free loopback ports, a throwaway HOME
// and secrets in memory), opens the URL with the token it prints, and stops it at the end.
// Needs: BOOKING_SERVER and API_KEY_SERVER (the built examples); CHROMEDRIVER and CHROMIUM
// (default /usr/bin/...). Run by .ci/hosts.sh; screenshots of a failure go to $HOSTS_ARTIFACTS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Browser, startDriver } from './webdriver.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const inspectorBin = join(here, 'node_modules', '.bin', 'mcp-inspector');
const artifacts = process.env.HOSTS_ARTIFACTS ?? join(tmpdir(), 'elicit-hosts');
mkdirSync(artifacts, { recursive: true });

function server(name) {
  const path = process.env[name];
  assert.ok(path, `${name} names the built example server`);
  return path;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The Inspector's web UI for one stdio server, on free ports; resolves with the URL it prints
 * (with its auth token). A port found free can be taken before the Inspector binds it (an
 * outgoing connection's ephemeral port, say): it then exits "PORT IS IN USE", and is started
 * again on other ports, at most three times. */
async function startInspector(era, command) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startInspectorOnce(era, command);
    } catch (error) {
      if (attempt >= 3 || !/PORT IS IN USE/.test(String(error.message))) throw error;
    }
  }
}

async function startInspectorOnce(era, command) {
  const home = mkdtempSync(join(tmpdir(), 'elicit-hosts-inspector-'));
  const [client, sandbox, appOrigin] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [inspectorBin, '--web', '--transport', 'stdio', '--protocol-era', era, '--', command],
    {
      env: {
        ...process.env,
        HOME: home,
        CLIENT_PORT: String(client),
        MCP_SANDBOX_PORT: String(sandbox),
        MCP_APP_ORIGIN_PORT: String(appOrigin),
        MCP_AUTO_OPEN_ENABLED: 'false',
        MCP_INSPECTOR_SECRET_STORE: 'memory',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  child.stdout.on('data', (chunk) => (log += chunk));
  child.stderr.on('data', (chunk) => (log += chunk));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Inspector printed no URL in 30 s:\n${log}`)), 30000);
    child.on('exit', (code) => reject(new Error(`the Inspector exited (${code}):\n${log}`)));
    const look = () => {
      const found = /up and running at:\s+(http:\/\/\S+)/.exec(log);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout.on('data', look);
  });
  return {
    url,
    log: () => log,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.on('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The Inspector's Results panel: the text of the call's result, once it shows `expected`, and
 * no dialog is open. */
async function resultShows(browser, expected, ms = 20000) {
  await browser.until(`the result "${expected}"`, async () => {
    const open = await browser.run('return document.querySelectorAll("[role=dialog]").length;');
    if (open) return false;
    const text = await browser.text();
    const results = text.split('Results')[1] ?? '';
    return results.includes(expected);
  }, ms);
}

async function dialogShows(browser, needle) {
  return browser.until(`a dialog showing "${needle}"`, async () => {
    const text = await browser.run(
      'const d = document.querySelector("[role=dialog]"); return d ? d.innerText : "";',
    );
    return text.includes(needle) ? text : null;
  });
}

/** Opens the Inspector, connects its one server, and selects `tool` in the Tools tab. */
async function openTool(browser, inspector, tool) {
  await browser.goto(inspector.url);
  await browser.clickFirst('.mantine-Switch-track');
  await browser.waitForText('Connected');
  await browser.clickButton('Tools');
  await browser.clickButton(tool);
}

/** Calls `tool` (chosen again in the list: the last result replaced its form) and waits for
 * the question. */
async function execute(browser, tool) {
  const shown = await browser.all('button[aria-label="Close results"]');
  if (shown.length) await browser.click(shown[0]);
  await browser.clickButton(tool);
  await browser.clickButton('Execute Tool');
  return dialogShows(browser, 'Elicitation Request');
}

const ERAS = [
  { era: 'legacy', revision: '2025-11-25' },
  { era: 'modern', revision: '2026-07-28' },
];

let driver;
before(async () => {
  driver = await startDriver();
});
after(() => driver?.close());

for (const { era, revision } of ERAS) {
  describe(`the Inspector on ${revision}`, () => {
    let browser;
    let inspector;
    let failed = false;

    async function session(command, tool) {
      inspector = await startInspector(era, command);
      browser = await Browser.open(driver);
      await openTool(browser, inspector, tool);
    }

    async function end(t) {
      if (failed && browser) {
        const name = `inspector-${revision}-${t}.png`.replace(/[^\w.-]+/g, '_');
        await browser.screenshot(join(artifacts, name)).catch(() => {});
        console.log(`screenshot: ${join(artifacts, name)}\nInspector log:\n${inspector?.log()}`);
      }
      await browser?.close().catch(() => {});
      await inspector?.stop();
      browser = inspector = undefined;
      failed = false;
    }

    async function step(name, body) {
      try {
        await body();
      } catch (error) {
        failed = true;
        throw error;
      }
    }

    test('a form: submitted, declined, cancelled, and asked again when a rule is broken', async () => {
      try {
        await session(server('BOOKING_SERVER'), 'book_table');
        await step('submit', async () => {
          const dialog = await execute(browser, 'book_table');
          if (era === 'modern') assert.match(dialog, /INPUT_REQUIRED/);
          await browser.fill('Party size', '4');
          await browser.fill('Date', '2026-12-24');
          await browser.clickButton('Submit');
          await resultShows(browser, 'A table for 4 on 2026-12-24.');
        });
        await step('decline', async () => {
          await execute(browser, 'book_table');
          await browser.clickButton('Decline');
          await resultShows(browser, 'You declined: nothing was booked.');
        });
        await step('cancel', async () => {
          await execute(browser, 'book_table');
          await browser.clickButton('Cancel');
          await resultShows(browser, 'You dismissed the form: nothing was booked.');
        });
        await step('a re-ask', async () => {
          await execute(browser, 'book_table');
          await browser.fill('Party size', '2');
          await browser.fill('Date', 'next friday');
          await browser.clickButton('Submit');
          // The same form again, saying what was wrong; the corrected answer books.
          const again = await dialogShows(browser, 'Date must be a date like');
          assert.match(again, /Your table: for how many, when, and where would you like to sit\?/);
          await browser.fill('Party size', '2');
          await browser.fill('Date', '2026-12-31');
          await browser.clickButton('Submit');
          await resultShows(browser, 'A table for 2 on 2026-12-31.');
        });
      } finally {
        await end('form');
      }
    });

    // 2025-11-25: the Inspector holds its `accept` until `notifications/elicitation/complete`
    // names the request, so the server's notification when the page finishes is what ends the
    // wait. 2026-07-28 has no such notification: the Inspector waits for its manual control,
    // "I've completed it" (the spec's "manual controls that let the user retry"), which sends
    // the `accept` retry. A user who clicks it before saving the page (as the spec's flow has
    // the client retry as soon as the user consents) is waited for: the retry blocks until the
    // page is saved, and the call finishes with no second click.
    const urlTitle = era === 'legacy'
      ? 'URL mode: open the page, save the key, and the call finishes with no click'
      : 'URL mode: open the page, "I\'ve completed it" too early, save the key, and the call finishes';
    test(urlTitle, async () => {
      try {
        await session(server('API_KEY_SERVER'), 'connect_api_key');
        await step('url', async () => {
          const dialog = await execute(browser, 'connect_api_key');
          const pageUrl = /http:\/\/localhost:\d+\/elicit\/[0-9a-f]{32}/.exec(dialog)?.[0];
          assert.ok(pageUrl, `the dialog shows the page's URL: ${dialog}`);
          const inspectorWindow = await browser.window();
          await browser.clickButton('Open in Browser');
          const page = await browser.until('the page in a new tab', async () =>
            (await browser.windows()).find((w) => w !== inspectorWindow));
          if (era === 'modern') {
            await dialogShows(browser, 'Waiting for completion');
            await browser.clickButton("I've completed it");
          }
          await browser.switchTo(page);
          await browser.until('the page', async () => (await browser.url()) === pageUrl);
          const key = 'exco_' + 'ghjkmnpqrstuvwxyzGHJKMNPQRS';
          const [input] = await browser.until('the key input', async () => {
            const found = await browser.all('input[name=key]');
            return found.length ? found : null;
          });
          await browser.type(input, key);
          await browser.clickButton('Save');
          await browser.waitForText('Saved');
          await browser.switchTo(inspectorWindow);
          // No (further) click: the Inspector's wait ends by itself.
          await resultShows(browser, `Connected the key ending ${key.slice(-4)}.`, 30000);
        });
      } finally {
        await end('url');
      }
    });
  });
}
