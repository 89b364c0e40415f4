// A team's identity provider for Beckon's tests: the `oidc-provider` package as a team would
// run it, with its own login and consent pages (any password is accepted for a known login),
// claims in the userinfo response rather than the ID token (its default), and RP-initiated
// logout. Set up by one JSON file named on the command line:
//
//   { "port": 4000,
//     "clients": [{ "client_id": "beckon", "client_secret": "…",
//                   "redirect_uris": ["…/auth/callback"], "post_logout_redirect_uris": ["…"] }],
//     "groups_claim": "groups",
//     "people": { "ada": { "name": "Ada Lovelace", "email": "ada@example.com", "groups": [] } },
//     "tls": { "host": "localhost", "cert": "server.pem", "key": "server.key" } }
//
// With `tls`, it serves HTTPS under `https://<host>:<port>` with that certificate (from a
// private authority, say); else plain HTTP on 127.0.0.1. Prints `listening <issuer>` once it
// serves.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Provider from 'oidc-provider';

const setup = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const issuer = setup.tls ? `https://${setup.tls.host}:${setup.port}` : `http://127.0.0.1:${setup.port}`;
const groupsClaim = setup.groups_claim ?? 'groups';

const provider = new Provider(issuer, {
  clients: setup.clients.map((client) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    ...client,
  })),
  // The groups come with the profile, as many providers send them.
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', groupsClaim] },
  cookies: { keys: ['beckon-tests-only-not-a-secret'] },
  features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  async findAccount(_ctx, id) {
    const person = setup.people[id];
    if (!person) return undefined;
    return {
      accountId: id,
      async claims() {
        return { sub: id, name: person.name, email: person.email, email_verified: true, [groupsClaim]: person.groups };
      },
    };
  },
});
const listening = () => console.log(`listening ${issuer}`);
if (setup.tls) {
  const tls = { cert: readFileSync(setup.tls.cert), key: readFileSync(setup.tls.key) };
  createServer(tls, provider.callback()).listen(setup.port, '127.0.0.1', listening);
} else {
  provider.listen(setup.port, '127.0.0.1', listening);
}
