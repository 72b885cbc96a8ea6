// A real OpenID provider for the browser tests: npm's oidc-provider (a certified implementation)
// with its own sign-in and consent pages in place of the development ones, which accept any
// login. Here a wrong password is refused.
//
//   OIDC_CLIENTS='[{"client_id":"page","client_secret":"s","redirect_uris":["http://127.0.0.1:8080/cb"]}]' \
//     node provider.mjs [--port N] [--issuer-host HOST]
//
// - Listens on 127.0.0.1 only; port 0 (the default) takes a free one. The issuer is
//   http://HOST:PORT (HOST defaults to 127.0.0.1; `localhost` puts the provider on another site
//   than pages served on 127.0.0.1, as a real provider is).
// - OIDC_CLIENTS is a JSON array of oidc-provider client metadata. Each client defaults to the
//   authorization-code grant, `code` responses and `client_secret_basic`; PKCE (S256) is required
//   of every client.
// - Prints `oidc-provider ready: <issuer>` on stdout once it answers; exits 0 on SIGTERM, on
//   SIGINT, and when its standard input closes (so it dies with the process that started it).
//
// The accounts are fixed: see ACCOUNTS below and ../README.md.

import { createHash, generateKeyPairSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

import Provider from 'oidc-provider';

// username -> what the provider knows of them. `sub` is the stable subject the relying parties
// compare; it differs from the username on purpose, so a test that reads the wrong one fails.
const ACCOUNTS = {
  alice: { password: 'alice-password', sub: 'sub-alice', name: 'Alice Example', email: 'alice@example.test' },
  bob: { password: 'bob-password', sub: 'sub-bob', name: 'Bob Example', email: 'bob@example.test' },
};
const BY_SUB = new Map(Object.entries(ACCOUNTS).map(([username, a]) => [a.sub, { username, ...a }]));

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.OIDC_PORT ?? '0' },
    'issuer-host': { type: 'string', default: process.env.OIDC_ISSUER_HOST ?? '127.0.0.1' },
  },
});

let clients;
try {
  clients = JSON.parse(process.env.OIDC_CLIENTS ?? '[]');
  if (!Array.isArray(clients)) throw new TypeError('not an array');
} catch (e) {
  console.error(`OIDC_CLIENTS must be a JSON array of client metadata: ${e.message}`);
  process.exit(2);
}
clients = clients.map((c) => ({
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...c,
}));

const sha256 = (s) => createHash('sha256').update(s).digest();
// Compares digests, so neither the length nor the first differing byte shows in the timing.
const passwordMatches = (given, expected) => timingSafeEqual(sha256(given), sha256(expected));

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res, status, title, body) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // No `form-action`: Chromium applies it to the redirects that follow a form's POST too, and the
  // consent form's POST ends in a redirect to the client's redirect URI, another origin.
  res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
  res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head>
<body><main>
<h1>${esc(title)}</h1>
${body}
</main></body></html>`);
}

function loginPage(res, uid, client, { error, username = '' } = {}) {
  const status = error ? 401 : 200;
  page(res, status, 'Sign in to the test provider', `
<p>to continue to <strong>${esc(client?.clientName ?? client?.clientId ?? 'an application')}</strong></p>
${error ? `<p role="alert" id="error">${esc(error)}</p>` : ''}
<form method="post" action="/interaction/${esc(uid)}/login" autocomplete="off">
  <label>Username <input name="username" value="${esc(username)}" autofocus></label>
  <label>Password <input name="password" type="password"></label>
  <button type="submit" name="action" value="sign-in">Sign in</button>
</form>
<form method="post" action="/interaction/${esc(uid)}/abort">
  <button type="submit">Cancel</button>
</form>`);
}

function consentPage(res, uid, client, account, details) {
  const scopes = [...(details.missingOIDCScope ?? [])];
  page(res, 200, `Authorize ${client?.clientName ?? client?.clientId}`, `
<p>Signed in as <strong id="account">${esc(account?.username ?? '?')}</strong>.</p>
<p><strong>${esc(client?.clientName ?? client?.clientId)}</strong> asks for: <span id="scopes">${esc(scopes.join(' ') || '(nothing new)')}</span></p>
<form method="post" action="/interaction/${esc(uid)}/consent">
  <button type="submit" name="decision" value="allow">Allow</button>
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`);
}

async function readForm(req) {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 64 * 1024) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

async function interaction(provider, req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) {
    return page(res, 400, 'Wrong interaction', '<p>This sign-in link belongs to another interaction.</p>');
  }
  const { prompt, params, session, grantId } = details;
  const client = await provider.Client.find(params.client_id);

  if (req.method === 'GET' && !action) {
    if (prompt.name === 'login') return loginPage(res, uid, client);
    if (prompt.name === 'consent') {
      return consentPage(res, uid, client, BY_SUB.get(session?.accountId), prompt.details);
    }
    return page(res, 501, 'Not implemented', `<p>Prompt ${esc(prompt.name)}</p>`);
  }
  if (req.method !== 'POST') return page(res, 405, 'Method not allowed', '');

  const form = await readForm(req);
  switch (action) {
    case 'login': {
      if (prompt.name !== 'login') return page(res, 400, 'Not signing in', '');
      const username = form.get('username') ?? '';
      const account = Object.hasOwn(ACCOUNTS, username) ? ACCOUNTS[username] : undefined;
      // Always compare, so an unknown username takes as long as a wrong password.
      const ok = passwordMatches(form.get('password') ?? '', account?.password ?? randomBytes(16).toString('hex'));
      if (!account || !ok) {
        return loginPage(res, uid, client, { error: 'Wrong username or password.', username });
      }
      return provider.interactionFinished(req, res, { login: { accountId: account.sub } }, {
        mergeWithLastSubmission: false,
      });
    }
    case 'consent': {
      if (prompt.name !== 'consent') return page(res, 400, 'Not asking for consent', '');
      if (form.get('decision') !== 'allow') {
        return provider.interactionFinished(req, res, {
          error: 'access_denied',
          error_description: 'The user denied the request',
        }, { mergeWithLastSubmission: false });
      }
      const grant = grantId
        ? await provider.Grant.find(grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const d = prompt.details;
      if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
      if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
      if (d.missingResourceScopes) {
        for (const [indicator, scope] of Object.entries(d.missingResourceScopes)) {
          grant.addResourceScope(indicator, scope.join(' '));
        }
      }
      return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, {
        mergeWithLastSubmission: true,
      });
    }
    case 'abort':
      return provider.interactionFinished(req, res, {
        error: 'access_denied',
        error_description: 'The user cancelled the sign-in',
      }, { mergeWithLastSubmission: false });
    default:
      return page(res, 404, 'Not found', '');
  }
}

// Listen first, so the issuer can name the port the system gave.
const server = createServer();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(Number(args.port), '127.0.0.1', resolve);
});
const issuer = `http://${args['issuer-host']}:${server.address().port}`;

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const provider = new Provider(issuer, {
  clients,
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' }] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  findAccount: async (_ctx, sub) => {
    const a = BY_SUB.get(sub);
    if (!a) return undefined;
    return {
      accountId: sub,
      claims: async () => ({
        sub, name: a.name, preferred_username: a.username, email: a.email, email_verified: true,
      }),
    };
  },
  claims: {
    openid: ['sub'],
    profile: ['name', 'preferred_username'],
    email: ['email', 'email_verified'],
  },
  // `repo` is GitHub's: tests/ops_server_github.rs has this provider play GitHub.
  scopes: ['openid', 'offline_access', 'profile', 'email', 'repo'],
  interactions: { url: (_ctx, i) => `/interaction/${i.uid}` },
  features: {
    devInteractions: { enabled: false },
    revocation: { enabled: true },
  },
  pkce: { required: () => true },
});
provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error:', err));

const callback = provider.callback();
server.on('request', (req, res) => {
  const m = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|consent|abort))?\/?$/.exec(req.url.split('?')[0]);
  if (!m) return callback(req, res);
  interaction(provider, req, res, m[1], m[2]).catch((err) => {
    // An expired or unknown interaction (SessionNotFound) and the like: say so, keep running.
    if (!res.headersSent) page(res, err.statusCode ?? 500, 'Sign-in failed', `<p>${esc(err.message)}</p>`);
    else res.end();
  });
});

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();

console.log(`oidc-provider ready: ${issuer}`);
