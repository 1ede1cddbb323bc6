import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { projectPath } from '../../src/paths.js';

const CANDIDATES = [
  process.env.CAIRN_TEST_CHROMIUM,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];

/** Debian's chromium (or CAIRN_TEST_CHROMIUM); undefined when none is installed (a failure under CI). */
export function chromiumPath(): string | undefined {
  const found = CANDIDATES.find((p): p is string => typeof p === 'string' && p !== '' && fs.existsSync(p));
  if (!found && process.env.CI)
    throw new Error("CI is set but no chromium was found: .ci/run installs Debian's chromium with apt.");
  return found;
}

/** Launches headless chromium with --no-sandbox (root in containers). */
export function launchBrowser(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/** Where browser tests put screenshots (git-ignored). */
export function artifactPath(name: string): string {
  const dir = projectPath('test-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
