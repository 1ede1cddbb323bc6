import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { projectPath } from '../paths.js';
import { describeCliError, UsageError } from './cliErrors.js';
import { COMMANDS, parseCommandLine, USAGE } from './commandLine.js';

// The entry point. It loads only the command line's own modules: `--help`, `--version` and a mistyped command answer
// at once, and each command loads what it needs when it runs (dispatch.ts).

/** The version in package.json (shipped beside dist/, also in the Docker image). */
function version(): string {
  return (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseCommandLine(argv);
  const command = positionals[0] ?? 'serve';
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.version || command === 'version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  // Before loadConfig, so a typo is reported as such even when the environment is incomplete.
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new UsageError(`unknown command "${command}" (commands: ${COMMANDS.join(', ')})`);
  // Needs no configuration or database: the definitions are static.
  if (command === 'tools') return (await import('./toolsCommand.js')).toolsCommand(values.format);
  const { runConfiguredCommand } = await import('./dispatch.js');
  return runConfiguredCommand(command, positionals.slice(1), values);
}

/**
 * Runs `cairn <argv>` and resolves with its exit code (-1 while `serve` keeps running); a failure is described on
 * stderr. Exported for tests, which run commands in their own process.
 */
export async function runCommand(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (err) {
    const { text, exitCode } = describeCliError(err);
    process.stderr.write(text);
    return exitCode;
  }
}

/** Whether this module is the program Node runs (directly, through bin/cairn.js or tsx), not one a test imported. */
function isProgram(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  let invoked: string;
  try {
    invoked = realpathSync(script);
  } catch {
    return false;
  }
  return invoked === fileURLToPath(import.meta.url) || invoked === projectPath('bin', 'cairn.js');
}

if (isProgram()) {
  void runCommand(process.argv.slice(2)).then((code) => {
    if (code >= 0) process.exit(code);
  });
}
