import { unauthenticated, type ApiKeyService } from './ApiKeyService.js';
import { isLocalHostHeader, isLoopbackHost } from './loopback.js';
import { LOCAL_PRINCIPAL, type Principal } from './roles.js';

/** The parts of an HTTP request that decide who sent it. */
export interface AuthRequest {
  authorization: string | undefined;
  /** The Host header. */
  host: string | undefined;
  /** True when a header that proxies add is present (`relayedByProxy`): the request came through a proxy. */
  forwarded: boolean;
  /** The peer's address (socket). */
  remoteAddress: string | undefined;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Turns a request into a Principal. Authentication is on when `alwaysRequired` (CAIRN_AUTH=required, or the server
 * listens beyond loopback) or once any unrevoked key exists, checked per request so that a key created elsewhere
 * turns it on within seconds. While it is off, only direct requests to a loopback address pass, as the local admin.
 */
export class Authenticator {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly alwaysRequired: boolean,
  ) {}

  /** True when requests need a key. */
  async enabled(): Promise<boolean> {
    return this.alwaysRequired || (await this.keys.anyActive());
  }

  /** True when `authorization` carries a key this process accepted recently (no database query). */
  presentsAcceptedKey(authorization: string | undefined): boolean {
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    return token !== undefined && this.keys.acceptedRecently(token);
  }

  /** The request's principal; throws UNAUTHENTICATED (`details.reason` 'invalid' for a key that was looked up or malformed). */
  async authenticate(req: AuthRequest): Promise<Principal> {
    if (!(await this.enabled())) {
      // A proxy would make the loopback-only server public; a foreign Host header means DNS rebinding.
      if (req.forwarded) throw unauthenticated('proxied');
      if (!isLocalHostHeader(req.host) || !isLoopbackHost(req.remoteAddress)) throw unauthenticated('host');
      return LOCAL_PRINCIPAL;
    }
    if (req.authorization === undefined || req.authorization.trim() === '') throw unauthenticated('missing');
    const token = BEARER.exec(req.authorization)?.[1];
    const record = token ? await this.keys.verify(token) : null;
    if (!record) throw unauthenticated('invalid');
    return { kind: 'key', keyId: record.id, name: record.name, role: record.role, spaces: record.spaces };
  }
}
