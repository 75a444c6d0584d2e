import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import Provider, { type ClientMetadata } from 'oidc-provider';

/**
 * A real, certified OpenID Connect provider (npm oidc-provider) on loopback for the tests. Its
 * login and consent are answered in-process for the account the test names (`signInAs`), so a
 * flow runs with real redirects, cookies, codes, signed ID tokens and published keys.
 */

export interface OidcAccount {
  readonly sub: string;
  readonly email: string;
  readonly email_verified: boolean;
  readonly name: string;
}

const SIGNING_KID = 'test-signing-key';

export class OidcServer {
  private account: OidcAccount | null = null;
  private readonly accounts = new Map<string, OidcAccount>();

  private constructor(
    readonly issuer: string,
    private readonly server: http.Server,
    private readonly signingKey: CryptoKey,
  ) {}

  /** `clients` is read at the first request, so a client may name a callback URL known only after the issuer is. */
  static async start(clients: () => readonly ClientMetadata[]): Promise<OidcServer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The provider's one signing key, kept so a test can sign claim sets the provider never would (signIdToken).
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const oidc = new OidcServer(issuer, server, privateKey);
    const jwk = { ...(await exportJWK(privateKey)), kid: SIGNING_KID, alg: 'RS256', use: 'sig' };
    const create = (): Provider => new Provider(issuer, {
      clients: [...clients()],
      jwks: { keys: [jwk] },
      cookies: { keys: ['test-cookie-key'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      // ID tokens carry the scopes' claims, as Google's and most providers' do.
      conformIdTokenClaims: false,
      // The provider asks for PKCE from public clients only; Gantry is a confidential one.
      pkce: { required: () => false },
      features: { devInteractions: { enabled: false } },
      findAccount: (_ctx, id) => {
        const account = oidc.accounts.get(id);
        return account === undefined ? undefined : { accountId: id, claims: () => ({ ...account }) };
      },
    });
    let provider: Provider | null = null;
    server.on('request', (req, res) => {
      provider ??= create();
      if (req.url?.startsWith('/interaction/')) {
        oidc.interact(provider, req, res).catch((error: unknown) => {
          res.statusCode = 500;
          res.end(String(error));
        });
        return;
      }
      provider.callback()(req, res);
    });
    return oidc;
  }

  /** Any claim set, signed RS256 with the key the provider publishes: what a forger with that key could send. */
  async signIdToken(claims: Record<string, unknown>): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: SIGNING_KID, typ: 'JWT' }).sign(this.signingKey);
  }

  /** The account the next login at the provider signs in as. */
  signInAs(account: OidcAccount): void {
    this.account = account;
    this.accounts.set(account.sub, account);
  }

  /** The login and consent pages: the chosen account logs in and grants what was asked. */
  private async interact(provider: Provider, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (this.account === null) throw new Error('no account chosen for the login');
    const accountId = this.account.sub;
    const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A browser's way through redirects: cookies kept, every hop followed until `stopAt` (or a non-redirect). */
export async function browse(start: string, stopAt: (url: URL) => boolean): Promise<{ url: URL; status: number; hops: URL[] }> {
  const cookies = new Map<string, string>();
  let url = new URL(start);
  const hops: URL[] = [];
  for (let hop = 0; hop < 20; hop += 1) {
    hops.push(url);
    if (stopAt(url)) return { url, status: 0, hops };
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair as string).indexOf('=');
      cookies.set((pair as string).slice(0, eq).trim(), (pair as string).slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (location === null || res.status < 300 || res.status > 399) {
      await res.text();
      return { url, status: res.status, hops };
    }
    await res.text();
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}
