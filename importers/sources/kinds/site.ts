import { AppError, ErrorCode } from '../../../src/errors.js';
import type { SiteConfig } from '../types.js';
import type { SourceDriver } from './driver.js';

/** A docs site (not available yet). */
export function siteDriver(_config: SiteConfig): SourceDriver {
  return {
    // eslint-disable-next-line require-yield
    async *items() {
      throw new AppError(ErrorCode.BAD_USER_INPUT, 'SITE sources cannot sync yet');
    },
  };
}
