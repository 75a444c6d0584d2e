import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * GitHub, GitLab and Discord on loopback, as Gantry's presets reach them with
 * `auth.external.<provider>.url` set to this server's origin: each one's authorize, token and
 * user APIs under its own paths, answering with the shapes the providers document (the user
 * answers are the test's, e.g. test/fixtures/oauth-providers). The authorize endpoint logs the
 * chosen user in at once; codes and tokens are single-use and bound to their client.
 */

export type OAuth2ProviderName = 'github' | 'gitlab' | 'discord';

interface ProviderShape {
  readonly authorize: string;
  readonly token: string;
  /** The user APIs, in the order the test gives their answers. */
  readonly userApis: readonly string[];
  /** The token endpoint's answer, as the provider documents it. */
  readonly tokenAnswer: (accessToken: string, refreshToken: string) => Record<string, unknown>;
}

const SHAPES: Readonly<Record<OAuth2ProviderName, ProviderShape>> = {
  // GitHub answers JSON when asked with Accept: application/json; no refresh token for OAuth apps.
  github: {
    authorize: '/login/oauth/authorize',
    token: '/login/oauth/access_token',
    userApis: ['/api/v3/user', '/api/v3/user/emails'],
    tokenAnswer: (accessToken) => ({ access_token: accessToken, token_type: 'bearer', scope: 'user:email' }),
  },
  gitlab: {
    authorize: '/oauth/authorize',
    token: '/oauth/token',
    userApis: ['/api/v4/user'],
    tokenAnswer: (accessToken, refreshToken) => ({
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 7200,
      refresh_token: refreshToken,
      scope: 'read_user',
      created_at: Math.floor(Date.now() / 1000),
    }),
  },
  discord: {
    authorize: '/api/oauth2/authorize',
    token: '/api/oauth2/token',
    userApis: ['/api/users/@me'],
    tokenAnswer: (accessToken, refreshToken) => ({ access_token: accessToken, token_type: 'Bearer', expires_in: 604800, refresh_token: refreshToken, scope: 'email identify' }),
  },
};

export interface OAuth2Client {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Read at each request, so it may name a callback known only after the server started. */
  readonly redirectUri: () => string;
}

/** What the server was asked, for the test to check what Gantry sent. */
export interface RecordedRequest {
  readonly provider: OAuth2ProviderName;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly form: Readonly<Record<string, string>>;
  readonly authorization: string | undefined;
  readonly accept: string | undefined;
}

interface Grant {
  readonly provider: OAuth2ProviderName;
  readonly answers: readonly unknown[];
}

export class OAuth2ProviderServer {
  readonly requests: RecordedRequest[] = [];
  private readonly nextUser = new Map<OAuth2ProviderName, readonly unknown[]>();
  private readonly codes = new Map<string, Grant>();
  private readonly tokens = new Map<string, Grant>();
  /** The last access and refresh token issued per provider. */
  readonly issued = new Map<OAuth2ProviderName, { readonly accessToken: string; readonly refreshToken: string }>();

  private constructor(
    readonly origin: string,
    private readonly server: http.Server,
    private readonly clients: Readonly<Record<OAuth2ProviderName, OAuth2Client>>,
  ) {}

  static async start(clients: Readonly<Record<OAuth2ProviderName, OAuth2Client>>): Promise<OAuth2ProviderServer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const provider = new OAuth2ProviderServer(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, clients);
    server.on('request', (req, res) => {
      provider.handle(req, res).catch((error: unknown) => reply(res, 500, { error: String(error) }));
    });
    return provider;
  }

  /** The user the next login at `provider` is: its user APIs' answers, in SHAPES' order. */
  signInAs(provider: OAuth2ProviderName, answers: readonly unknown[]): void {
    this.nextUser.set(provider, answers);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    const body = await readAll(req);
    const form = Object.fromEntries(new URLSearchParams(req.headers['content-type']?.startsWith('application/x-www-form-urlencoded') ? body : ''));
    for (const [name, shape] of Object.entries(SHAPES) as [OAuth2ProviderName, ProviderShape][]) {
      const route = url.pathname === shape.authorize ? 'authorize' : url.pathname === shape.token ? 'token' : shape.userApis.indexOf(url.pathname);
      if (route === -1) continue;
      this.requests.push({
        provider: name,
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        form,
        authorization: req.headers.authorization,
        accept: req.headers.accept,
      });
      if (route === 'authorize') return this.authorize(name, url, res);
      if (route === 'token') return this.token(name, form, res);
      return this.userApi(name, route, req.headers.authorization, res);
    }
    reply(res, 404, { message: 'Not Found' });
  }

  private authorize(provider: OAuth2ProviderName, url: URL, res: http.ServerResponse): void {
    const client = this.clients[provider];
    const params = Object.fromEntries(url.searchParams);
    if (params.client_id !== client.clientId || params.redirect_uri !== client.redirectUri() || params.response_type !== 'code') {
      return reply(res, 400, { error: 'invalid_request' });
    }
    const answers = this.nextUser.get(provider);
    if (answers === undefined) return reply(res, 400, { error: 'no user chosen for the login' });
    const code = randomUUID();
    this.codes.set(code, { provider, answers });
    const back = new URL(client.redirectUri());
    back.searchParams.set('code', code);
    if (params.state !== undefined) back.searchParams.set('state', params.state);
    res.writeHead(302, { location: back.href }).end();
  }

  private token(provider: OAuth2ProviderName, form: Readonly<Record<string, string>>, res: http.ServerResponse): void {
    const client = this.clients[provider];
    const grant = form.code === undefined ? undefined : this.codes.get(form.code);
    if (form.code !== undefined) this.codes.delete(form.code);
    if (form.client_id !== client.clientId || form.client_secret !== client.clientSecret) return reply(res, 401, { error: 'invalid_client' });
    if (form.grant_type !== 'authorization_code' || grant === undefined || grant.provider !== provider || form.redirect_uri !== client.redirectUri()) {
      return reply(res, 400, { error: 'invalid_grant' });
    }
    const accessToken = `${provider}-access-${randomUUID()}`;
    const refreshToken = `${provider}-refresh-${randomUUID()}`;
    this.tokens.set(accessToken, grant);
    this.issued.set(provider, { accessToken, refreshToken });
    reply(res, 200, SHAPES[provider].tokenAnswer(accessToken, refreshToken));
  }

  private userApi(provider: OAuth2ProviderName, index: number, authorization: string | undefined, res: http.ServerResponse): void {
    const grant = authorization?.startsWith('Bearer ') ? this.tokens.get(authorization.slice('Bearer '.length)) : undefined;
    if (grant === undefined || grant.provider !== provider) return reply(res, 401, { message: 'Bad credentials' });
    reply(res, 200, grant.answers[index]);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readAll(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
