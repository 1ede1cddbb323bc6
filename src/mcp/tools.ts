import { z } from 'zod';
import { entityNeighborsTool, findEntitiesTool, shortestPathTool } from './graphTools.js';
import { enrichContextTool, getDocumentTool, knowledgeGapsTool, searchTool } from './retrievalTools.js';
import type { ToolDefinition } from './toolDefinition.js';
import { createDocumentTool, createEntityTool, createRelationshipTool, importUrlTool } from './writeTools.js';

/** Every Cairn tool, in the order clients list them: the one definition MCP and `cairn tools` both read. */
export const CAIRN_TOOLS: readonly ToolDefinition[] = [
  enrichContextTool,
  searchTool,
  getDocumentTool,
  findEntitiesTool,
  entityNeighborsTool,
  shortestPathTool,
  knowledgeGapsTool,
  createDocumentTool,
  importUrlTool,
  createEntityTool,
  createRelationshipTool,
];

/** The tool with this name, if any. */
export function findTool(name: string): ToolDefinition | undefined {
  return CAIRN_TOOLS.find((t) => t.name === name);
}

/** A JSON Schema object, as MCP and function-calling APIs take it. */
export type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/** The JSON Schema of a tool's arguments, without zod's ±2^53 integer bounds (noise to a model) or `$schema`. */
export function argumentsSchema(tool: ToolDefinition): JsonSchemaObject {
  const schema = z.toJSONSchema(tool.input, {
    io: 'input',
    override: ({ jsonSchema }) => {
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  });
  const { $schema: _, ...rest } = schema;
  return { ...rest, type: 'object' };
}
