import { AppError, ErrorCode, isAppError } from '../../src/errors.js';
import { checkUrl, normalizeAllowList, systemResolver, vetTarget } from '../http/fetchTarget.js';
import type { SourceRuntime } from './kinds/driver.js';

/**
 * Refuses a URL whose host is at a blocked address (IMPORT_FETCH_BLOCKED naming the URL, after `field` when given,
 * with how to allow it), as every fetch would. A host that does not resolve now may later: only a blocked address fails.
 */
export async function refuseBlockedUrl(
  url: string,
  field: string | undefined,
  runtime: Pick<SourceRuntime, 'importConfig' | 'resolve'>,
): Promise<void> {
  try {
    const allowList = normalizeAllowList(runtime.importConfig.allowPrivateHosts);
    await vetTarget(checkUrl(url), allowList, runtime.resolve ?? systemResolver);
  } catch (err) {
    if (!isAppError(err) || err.code !== ErrorCode.IMPORT_FETCH_BLOCKED) return;
    if (field === undefined) throw err;
    throw new AppError(err.code, `${field}: ${err.message}`, { ...err.details, field }, { cause: err });
  }
}
