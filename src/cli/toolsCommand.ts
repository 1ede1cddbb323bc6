import { FUNCTION_FORMATS, functionDefinitions, type FunctionFormat } from '../mcp/functionCalling.js';
import { UsageError } from './cliErrors.js';

/** `cairn tools --format openai|anthropic`: prints the tool definitions as a JSON array. */
export function toolsCommand(format: string | undefined): number {
  const chosen = (format ?? '').trim().toLowerCase();
  if (!(FUNCTION_FORMATS as readonly string[]).includes(chosen)) {
    throw new UsageError(
      `tools needs --format ${FUNCTION_FORMATS.join('|')} (got ${format === undefined ? 'none' : `"${format}"`})`,
    );
  }
  process.stdout.write(`${JSON.stringify(functionDefinitions(chosen as FunctionFormat), null, 2)}\n`);
  return 0;
}
