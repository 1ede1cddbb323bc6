import { AppError, ErrorCode, badInput } from '../../src/errors.js';
import type { SecretBox } from '../../src/shared/secretBox.js';
import { parseGitRemote, type GitRemote } from './kinds/gitRemote.js';
import { checkDeployKey, checkKnownHosts } from './kinds/gitSsh.js';
import type { SourceRepository } from './SourceRepository.js';
import type { SourceConfig, SourceRecord, SshSettings, StoredDeployKey } from './types.js';
import type { RawSourceInput } from './validateSource.js';

const NONE: SshSettings = { deployKey: null, sshKnownHosts: null };

/** What binds a sealed deploy key to its source: a key copied into another row does not open there. */
const sealContext = (sourceId: string) => `source:${sourceId}:deploy-key`;

const sameHost = (a: GitRemote, b: GitRemote) => a.host.toLowerCase() === b.host.toLowerCase() && a.port === b.port;

/**
 * The deploy key and trusted host keys of a source after a create (`before` undefined) or an update. An ssh remote
 * needs a deploy key; https remotes and other kinds take none. A key given is checked with ssh-keygen and sealed
 * with CAIRN_SECRET_KEY; a new host forgets the host keys learned for the old one.
 */
export async function resolveSshSettings(
  sourceId: string,
  config: SourceConfig,
  raw: RawSourceInput,
  before: { config: SourceConfig; ssh: SshSettings } | undefined,
  secrets: SecretBox | undefined,
  prefix = 'input',
): Promise<SshSettings> {
  const keyGiven = raw.deployKey !== undefined && raw.deployKey !== null && raw.deployKey !== '';
  const hostsGiven = raw.sshKnownHosts !== undefined && raw.sshKnownHosts !== null && raw.sshKnownHosts !== '';
  if (config.kind !== 'GIT') {
    if (keyGiven || hostsGiven)
      throw badInput(
        `${prefix}.${keyGiven ? 'deployKey' : 'sshKnownHosts'}`,
        `only GIT sources over ssh take one; this is a ${config.kind} source`,
      );
    return NONE;
  }
  const remote = parseGitRemote(config.config.url, `${prefix}.url`);
  if (remote.transport !== 'ssh') {
    if (keyGiven || hostsGiven) {
      throw badInput(
        `${prefix}.${keyGiven ? 'deployKey' : 'sshKnownHosts'}`,
        "is for ssh remotes (git@host:org/repo.git or ssh://…); this source's url is http(s)",
      );
    }
    return NONE;
  }
  const previous = before?.config.kind === 'GIT' && parseGitRemote(before.config.config.url, `${prefix}.url`);
  let { deployKey, sshKnownHosts } = before?.ssh ?? NONE;
  if (previous && (previous.transport !== 'ssh' || !sameHost(previous, remote))) sshKnownHosts = null;
  if (raw.deployKey !== undefined)
    deployKey = keyGiven
      ? await sealDeployKey(raw.deployKey as string, sourceId, secrets, `${prefix}.deployKey`)
      : null;
  if (raw.sshKnownHosts !== undefined)
    sshKnownHosts = hostsGiven ? checkKnownHosts(raw.sshKnownHosts as string, `${prefix}.sshKnownHosts`) : null;
  if (!deployKey) {
    throw badInput(
      `${prefix}.deployKey`,
      "an ssh repository needs a deploy key: give its private key here and add the public half to the repository's deploy keys",
    );
  }
  return { deployKey, sshKnownHosts };
}

async function sealDeployKey(
  given: string,
  sourceId: string,
  secrets: SecretBox | undefined,
  field: string,
): Promise<StoredDeployKey> {
  if (!secrets?.enabled) {
    throw new AppError(
      ErrorCode.CONFIG_INVALID,
      `${field}: deploy keys are stored encrypted with CAIRN_SECRET_KEY, which is not set on this server: set it to at least 32 random characters (e.g. \`openssl rand -base64 32\`) and restart`,
      { field },
    );
  }
  const key = await checkDeployKey(given, field);
  return {
    sealed: secrets.seal(key.privateKey, sealContext(sourceId)),
    publicKey: key.publicKey,
    fingerprint: key.fingerprint,
  };
}

/** The private deploy key of a source, for one sync; one sealed under a previous CAIRN_SECRET_KEY is sealed again. */
export async function openDeployKey(
  source: SourceRecord,
  secrets: SecretBox | undefined,
  repository: SourceRepository,
): Promise<string> {
  const stored = source.deployKey;
  if (!stored)
    throw new AppError(
      ErrorCode.BAD_USER_INPUT,
      `source "${source.name}" has an ssh url but no deploy key: give one with updateSource`,
      { id: source.id },
    );
  if (!secrets)
    throw new AppError(
      ErrorCode.CONFIG_INVALID,
      'CAIRN_SECRET_KEY is not set on this server, so the deploy key cannot be decrypted',
    );
  const { plain, stale } = secrets.open(stored.sealed, sealContext(source.id));
  if (stale)
    await repository.resealDeployKey(source.id, stored, {
      ...stored,
      sealed: secrets.seal(plain, sealContext(source.id)),
    });
  return plain;
}
