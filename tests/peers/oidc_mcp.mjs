// A real authorization server (oidc-provider) and an MCP server it protects,
// for the end-to-end OAuth test (tests/tests/oauth_oidc_provider.rs).
//
//   node oidc_mcp.mjs
//
// Listens on two ephemeral ports of 127.0.0.1 only and prints one JSON line
// on stdout once both listen: {"issuer": "http://127.0.0.1:A", "mcp":
// "http://127.0.0.1:B/mcp", "stats": "http://127.0.0.1:B/stats"}.
//
// The authorization server (oidc-provider, certified OpenID/OAuth server):
// open Dynamic Client Registration, PKCE S256 required, resource indicators
// (RFC 8707: tokens for the MCP server's URL only, scope `mcp:tools`),
// RFC 9207 `iss` on the authorization response, refresh tokens rotated on
// every use, access tokens that live ACCESS_TOKEN_TTL seconds (env, default
// 4). Its own login and consent pages (dev interactions: any login and
// password), and its device flow page where a user code is entered, are what
// the tests submit, as a headless user agent would.
//
// The MCP server (the TypeScript SDK's McpServer, stateless Streamable HTTP):
// every request needs a bearer token that the provider itself vouches for
// (found in its store, not expired, for this resource, with `mcp:tools`),
// else 401 with a `resource_metadata` challenge; its Protected Resource
// Metadata (RFC 9728) names the provider. One tool, `whoami`, returns a
// fingerprint of the token that called it (never the token). GET /stats says
// how many tokens were issued per grant and how many refresh tokens were
// consumed (rotation), how many tokens were revoked (RFC 7009), so the
// test can check what really happened.
//
// MACHINE_CLIENT (env, optional): JSON {"client_id", "public_key_pem"}
// registers a client for the client_credentials grant that authenticates
// with private_key_jwt (RFC 7523) signed by that key's private half
// (ES256 for an EC key, RS256 for RSA); stats count `client_credentials`
// tokens.
//
// DPOP (env, optional): `1` turns on the provider's DPoP (RFC 9449; ES256,
// a nonce required at the token endpoint) and makes the MCP server accept
// DPoP-bound tokens only, each request with a proof it checks in full:
// `typ`, `alg`, the signature with the header's `jwk` (no private part),
// `htm`, `htu` (the MCP URL, no query or fragment), `iat` within 300 s, a
// `jti` never seen before, `ath` of the token, the key thumbprint equal to
// the token's `cnf.jkt`, and a nonce of its own (401 `use_dpop_nonce` with
// `DPoP-Nonce` until the proof carries it). Stats count checked proofs
// (`dpop_proofs`), nonce demands (`dpop_nonce_demands`) and refusals with
// their reasons (`dpop_refused`).

import { createHash, createPublicKey, randomBytes, verify as verifySignature } from "node:crypto";
import http from "node:http";

import Provider from "oidc-provider";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

const HOST = "127.0.0.1";
const SCOPE = "mcp:tools";
const ttl = Number(process.env.ACCESS_TOKEN_TTL || "4");

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, () => resolve(server.address().port));
  });
}

const asServer = http.createServer();
const mcpServer = http.createServer();
const asPort = await listen(asServer);
const mcpPort = await listen(mcpServer);
const issuer = `http://${HOST}:${asPort}`;
const resource = `http://${HOST}:${mcpPort}/mcp`;
const prmUrl = `http://${HOST}:${mcpPort}/.well-known/oauth-protected-resource/mcp`;

const machine = process.env.MACHINE_CLIENT ? JSON.parse(process.env.MACHINE_CLIENT) : null;
const machineJwk = machine ? createPublicKey(machine.public_key_pem).export({ format: "jwk" }) : null;
const machineClients = machine
  ? [{
      client_id: machine.client_id,
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: "private_key_jwt",
      token_endpoint_auth_signing_alg: machineJwk.kty === "RSA" ? "RS256" : "ES256",
      jwks: { keys: [machineJwk] },
      scope: SCOPE,
    }]
  : [];

const dpop = process.env.DPOP === "1";
const rsNonce = `rs-${randomBytes(12).toString("base64url")}`;
const jtisSeen = new Set();

const stats = { dpop_proofs: 0, dpop_nonce_demands: 0, dpop_refused: [], client_credentials: 0, authorization_code: 0, refresh_token: 0, refresh_tokens_consumed: 0, registrations: 0, rejected: 0, revoked: 0, "urn:ietf:params:oauth:grant-type:device_code": 0 };

const provider = new Provider(issuer, {
  clients: machineClients,
  scopes: ["openid", "offline_access", SCOPE],
  features: {
    clientCredentials: { enabled: machine !== null },
    dPoP: dpop
      ? { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => true }
      : { enabled: false },
    devInteractions: { enabled: true },
    // RFC 8628: `mcp login --device`; the user code is entered on the
    // provider's own /device page.
    deviceFlow: { enabled: true },
    registration: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) {
          throw new Provider.errors.InvalidTarget();
        }
        return { scope: SCOPE, audience: resource, accessTokenTTL: ttl, accessTokenFormat: "opaque" };
      },
    },
  },
  pkce: { required: () => true },
  rotateRefreshToken: true,
  // A refresh token for every client allowed the grant (not only OpenID
  // requests with offline_access and a consent prompt).
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
  clientDefaults: {
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  },
  ttl: { AccessToken: ttl, ClientCredentials: ttl },
  ...(dpop ? { enabledJWA: { dPoPSigningAlgValues: ["ES256"] } } : {}),
});
provider.on("grant.success", (ctx) => {
  const grant = ctx.oidc.params.grant_type;
  if (grant in stats) stats[grant] += 1;
});
provider.on("refresh_token.consumed", () => {
  stats.refresh_tokens_consumed += 1;
});
provider.on("grant.revoked", () => {
  stats.revoked += 1;
});
provider.on("registration_create.success", () => {
  stats.registrations += 1;
});
asServer.on("request", provider.callback());

/// The token's record when the provider vouches for it for this resource.
async function verify(authorization) {
  // A client that proves possession sends its DPoP-bound token as `DPoP`.
  const match = /^(?:Bearer|DPoP) (.+)$/.exec(authorization || "");
  if (!match) return null;
  const token = (await provider.AccessToken.find(match[1])) || (await provider.ClientCredentials.find(match[1]));
  if (!token || token.isExpired) return null;
  const audience = Array.isArray(token.aud) ? token.aud : [token.aud];
  if (!audience.includes(resource)) return null;
  if (!String(token.scope || "").split(" ").includes(SCOPE)) return null;
  return { token: match[1], clientId: token.clientId, scopes: token.scope.split(" "), expiresAt: token.exp, jkt: token.jkt };
}

const b64json = (part) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));

/// What is wrong with the DPoP proof of `req` for `auth` (a verified
/// token), or null when it passes every check of RFC 9449 § 4.3 and § 7.1.
function proofProblem(req, auth) {
  if (!/^DPoP /.test(req.headers.authorization || "")) return "the token is not presented with the DPoP scheme";
  if (!auth.jkt) return "the token is not DPoP-bound";
  const proof = req.headers.dpop;
  if (typeof proof !== "string" || proof.includes(",")) return "not exactly one DPoP header";
  const parts = proof.split(".");
  if (parts.length !== 3) return "the proof is not a compact JWS";
  let header;
  let claims;
  try {
    header = b64json(parts[0]);
    claims = b64json(parts[1]);
  } catch {
    return "the proof is not JSON";
  }
  if (header.typ !== "dpop+jwt" || header.alg !== "ES256") return `header ${JSON.stringify({ typ: header.typ, alg: header.alg })}`;
  const jwk = header.jwk;
  if (!jwk || jwk.d !== undefined) return "no public jwk in the header";
  let key;
  try {
    key = createPublicKey({ key: jwk, format: "jwk" });
  } catch {
    return "the jwk is not a key";
  }
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  const signature = Buffer.from(parts[2], "base64url");
  if (!verifySignature("sha256", signed, { key, dsaEncoding: "ieee-p1363" }, signature)) return "the signature does not verify";
  if (claims.htm !== req.method) return `htm ${claims.htm} for ${req.method}`;
  if (claims.htu !== resource) return `htu ${claims.htu}`;
  if (typeof claims.iat !== "number" || Math.abs(Date.now() / 1000 - claims.iat) > 300) return "iat outside 300 s";
  if (typeof claims.jti !== "string" || !claims.jti) return "no jti";
  if (jtisSeen.has(claims.jti)) return "a jti seen before (a replayed proof)";
  jtisSeen.add(claims.jti);
  if (claims.ath !== createHash("sha256").update(auth.token).digest("base64url")) return "ath is not the token's hash";
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  if (createHash("sha256").update(canonical).digest("base64url") !== auth.jkt) return "the proof's key is not the token's cnf.jkt";
  if (claims.nonce !== rsNonce) return "use_dpop_nonce";
  return null;
}

function makeMcp() {
  const server = new McpServer({ name: "oidc-protected", version: "1.0.0" });
  server.registerTool("whoami", { description: "A fingerprint of the calling token." }, async (extra) => {
    const print = createHash("sha256").update(extra.authInfo.token).digest("hex").slice(0, 16);
    return { content: [{ type: "text", text: `${extra.authInfo.clientId} ${print}` }] };
  });
  return server;
}

mcpServer.on("request", async (req, res) => {
  try {
    const url = new URL(req.url, `http://${HOST}:${mcpPort}`);
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: [SCOPE] }));
      return;
    }
    if (url.pathname === "/stats") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(stats));
      return;
    }
    if (url.pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const auth = await verify(req.headers.authorization);
    if (!auth) {
      stats.rejected += 1;
      const error = req.headers.authorization ? ', error="invalid_token"' : "";
      res.writeHead(401, {
        "www-authenticate": `Bearer resource_metadata="${prmUrl}", scope="${SCOPE}"${error}`,
      });
      res.end();
      return;
    }
    if (dpop) {
      const problem = proofProblem(req, auth);
      if (problem === "use_dpop_nonce") {
        stats.dpop_nonce_demands += 1;
        res.writeHead(401, { "www-authenticate": 'DPoP error="use_dpop_nonce"', "dpop-nonce": rsNonce });
        res.end();
        return;
      }
      if (problem) {
        stats.dpop_refused.push(problem);
        res.writeHead(401, { "www-authenticate": `DPoP error="invalid_dpop_proof", error_description="${problem}"` });
        res.end();
        return;
      }
      stats.dpop_proofs += 1;
    }
    req.auth = auth;
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = text ? JSON.parse(text) : undefined;
    const server = makeMcp();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  } catch (e) {
    process.stderr.write(`mcp server error: ${e && e.stack}\n`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});

process.stdout.write(`${JSON.stringify({ issuer, mcp: resource, stats: `http://${HOST}:${mcpPort}/stats` })}\n`);
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => process.exit(0));
}
