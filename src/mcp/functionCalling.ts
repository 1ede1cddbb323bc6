import { argumentsSchema, CAIRN_TOOLS } from './tools.js';

/** The function-calling formats `cairn tools` prints. */
export const FUNCTION_FORMATS = ['openai', 'anthropic'] as const;
export type FunctionFormat = (typeof FUNCTION_FORMATS)[number];

/**
 * Cairn's tools as function definitions for runtimes without MCP, built from the same definitions MCP lists:
 * OpenAI's Chat Completions `tools` array, or the Anthropic Messages API's.
 */
export function functionDefinitions(format: FunctionFormat): unknown[] {
  return CAIRN_TOOLS.map((tool) => {
    const parameters = argumentsSchema(tool);
    return format === 'openai'
      ? { type: 'function', function: { name: tool.name, description: tool.description, parameters } }
      : { name: tool.name, description: tool.description, input_schema: parameters };
  });
}
