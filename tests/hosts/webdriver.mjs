// A WebDriver client for the hosts' tests: Debian's chromedriver started on a free loopback
// port, and a headless Chromium with a fresh profile, driven over the W3C WebDriver protocol with
// Node's own `fetch` (no client library: the protocol is a handful of JSON requests).
//
// The flags are tests/browser's (src/browser.rs): headless, and nothing that reaches past this
// machine (no QUIC, no background networking, no component updates, no sync).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const CHROMEDRIVER = process.env.CHROMEDRIVER ?? '/usr/bin/chromedriver';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--window-size=1400,1000',
];
// The W3C name of an element reference in a WebDriver answer.
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

/** chromedriver on a port it picks and prints; `close()` stops it. */
export async function startDriver() {
  const child = spawn(CHROMEDRIVER, ['--port=0', '--log-level=WARNING'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`chromedriver said no port: ${out}`)), 15000);
    child.on('error', (error) => reject(new Error(`${CHROMEDRIVER}: ${error.message}`)));
    child.on('exit', (code) => reject(new Error(`chromedriver exited (${code}): ${out}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /started successfully on port (\d+)/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(Number(found[1]));
      }
    });
  });
  child.stdout.resume();
  child.stderr.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    close() {
      child.kill('SIGTERM');
    },
  };
}

async function call(url, method, body) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) {
    const error = new Error(`${method} ${url}: ${answer.value?.error}: ${answer.value?.message}`);
    error.webdriver = answer.value?.error;
    throw error;
  }
  return answer.value;
}

/** A browser session with its own fresh profile directory, removed on `close()`. */
export class Browser {
  static async open(driver) {
    const profile = mkdtempSync(join(tmpdir(), 'elicit-hosts-chromium-'));
    const caps = {
      capabilities: {
        alwaysMatch: {
          browserName: 'chrome',
          'goog:chromeOptions': {
            binary: CHROMIUM,
            args: [...FLAGS, `--user-data-dir=${profile}`],
          },
        },
      },
    };
    const session = await call(`${driver.url}/session`, 'POST', caps);
    return new Browser(`${driver.url}/session/${session.sessionId}`, profile);
  }

  constructor(base, profile) {
    this.base = base;
    this.profile = profile;
  }

  cmd(method, path, body) {
    return call(`${this.base}${path}`, method, body);
  }

  async close() {
    try {
      await this.cmd('DELETE', '');
    } finally {
      rmSync(this.profile, { recursive: true, force: true });
    }
  }

  goto(url) {
    return this.cmd('POST', '/url', { url });
  }

  url() {
    return this.cmd('GET', '/url');
  }

  /** Runs `script` (a function body; `arguments` are `args`) in the page and returns its value. */
  run(script, ...args) {
    return this.cmd('POST', '/execute/sync', { script, args });
  }

  async screenshot(path) {
    const png = await this.cmd('GET', '/screenshot');
    writeFileSync(path, Buffer.from(png, 'base64'));
  }

  windows() {
    return this.cmd('GET', '/window/handles');
  }

  window() {
    return this.cmd('GET', '/window');
  }

  switchTo(handle) {
    return this.cmd('POST', '/window', { handle });
  }

  /** The page's visible text. */
  text() {
    return this.run('return document.body ? document.body.innerText : "";');
  }

  /** Waits until `test()` returns a truthy value, and returns it; fails naming `what`. */
  async until(what, test, ms = 20000) {
    const deadline = Date.now() + ms;
    let last;
    for (;;) {
      try {
        const value = await test();
        if (value) return value;
      } catch (error) {
        last = error;
      }
      if (Date.now() > deadline) {
        const text = await this.text().catch(() => '(no text)');
        throw new Error(`waited ${ms} ms for ${what}${last ? ` (${last.message})` : ''}; the page shows:\n${text}`);
      }
      await sleep(100);
    }
  }

  /** Waits until the page's text contains `needle` (a string or a RegExp). */
  waitForText(needle, ms) {
    const test = typeof needle === 'string' ? (t) => t.includes(needle) : (t) => needle.test(t);
    return this.until(`the text ${needle}`, async () => test(await this.text()), ms);
  }

  /** Elements matching a CSS selector, as WebDriver references. */
  async all(css) {
    const found = await this.cmd('POST', '/elements', { using: 'css selector', value: css });
    return found.map((element) => element[ELEMENT]);
  }

  /** The last visible, enabled control (a button, a tab, a link, an option) whose text is
   * exactly `label`, clicked as a user clicks; found again if the page re-rendered it. */
  async clickButton(label, ms) {
    const css = 'button, label, [role=tab], [role=button], [role=option], [role=menuitem], a';
    await this.until(`an enabled control "${label}"`, async () => {
      const ids = await this.run(
        `return [...document.querySelectorAll(arguments[1])]
           .map((b, i) => [b, i])
           .filter(([b]) => b.innerText.trim() === arguments[0] && !b.disabled
             && b.getAttribute('aria-disabled') !== 'true' && b.getClientRects().length > 0)
           .map(([, i]) => i);`,
        label,
        css,
      );
      if (ids.length === 0) return false;
      const controls = await this.all(css);
      await this.click(controls[ids[ids.length - 1]]);
      return true;
    }, ms);
  }

  /** The first visible element matching `css`, clicked; found again if the page re-rendered it. */
  async clickFirst(css, ms) {
    await this.until(`a visible "${css}"`, async () => {
      const [id] = await this.all(css);
      if (!id) return false;
      await this.click(id);
      return true;
    }, ms);
  }

  /** Types `text` into the element `id` (after clearing it), as keystrokes. */
  async type(id, text) {
    await this.cmd('POST', `/element/${id}/clear`, {});
    await this.cmd('POST', `/element/${id}/value`, { text });
  }

  /** The input of the field labelled `label` in the open dialog (the label's own text, without
   * the required marker), cleared and typed into. */
  async fill(label, text) {
    const id = await this.until(`a field "${label}"`, async () => {
      const inputId = await this.run(
        `const label = [...document.querySelectorAll('[role=dialog] label')]
           .find((l) => (l.firstChild?.textContent ?? '').trim() === arguments[0]);
         return label ? label.getAttribute('for') : null;`,
        label,
      );
      if (!inputId) return null;
      const [found] = await this.all(`[id="${inputId}"]`);
      return found;
    });
    await this.type(id, text);
  }

  async click(id) {
    await this.cmd('POST', `/element/${id}/click`, {});
  }
}

export { ELEMENT };
