import { ErrorCode, isAppError } from '../../src/errors.js';
import { refuseBlockedUrl } from './addressCheck.js';
import type { SourceDriver, SourceRuntime } from './kinds/driver.js';
import { folderDriver } from './kinds/folder.js';
import { gitDriver, vetGitUrl } from './kinds/git.js';
import { openApiDriver } from './kinds/openapi.js';
import { siteDriver } from './kinds/site.js';
import type { SourceRepository } from './SourceRepository.js';
import { openDeployKey } from './sshSettings.js';
import type { SourceConfig, SourceRecord } from './types.js';

/** The sync of each kind. */
export function driverFor(source: SourceRecord, runtime: SourceRuntime, repository: SourceRepository): SourceDriver {
  switch (source.kind) {
    case 'FOLDER':
      return folderDriver(source.config);
    case 'GIT':
      return gitDriver(source.config, source.id, {
        privateKey: () => openDeployKey(source, runtime.secrets, repository),
        knownHosts: source.sshKnownHosts,
        learn: (knownHosts) => repository.learnKnownHosts(source.id, knownHosts),
      });
    case 'OPENAPI':
      return openApiDriver(source.config);
    case 'SITE':
      return siteDriver(source.config);
  }
}

/** Refuses a source whose URLs are at blocked addresses now, as its sync would (which checks every fetch again). */
export async function refuseBlockedAddresses(source: SourceConfig, runtime: SourceRuntime): Promise<void> {
  if (source.kind === 'GIT') await refuseBlockedGitHost(source.config.url, runtime);
  if (source.kind === 'OPENAPI') await refuseBlockedUrl(source.config.url, 'input.url', runtime);
  if (source.kind === 'SITE') {
    await refuseBlockedUrl(source.config.url, 'input.url', runtime);
    if (source.config.sitemapUrl) await refuseBlockedUrl(source.config.sitemapUrl, 'input.sitemapUrl', runtime);
  }
}

async function refuseBlockedGitHost(url: string, runtime: SourceRuntime): Promise<void> {
  try {
    await vetGitUrl(url, runtime.importConfig.allowPrivateHosts, runtime.resolve);
  } catch (err) {
    // A host that does not resolve now may later; a blocked address never may.
    if (isAppError(err) && err.code === ErrorCode.IMPORT_FETCH_BLOCKED) throw err;
  }
}
