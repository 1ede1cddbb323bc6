import type { z } from 'zod';
import type { Principal, Role } from '../auth/roles.js';
import type { TextBudget } from '../graphql/TextBudget.js';
import type { Services } from '../services.js';

/** What a tool call runs with: the shared services, who is calling, and the text the answer may still carry. */
export interface ToolContext {
  services: Services;
  principal: Principal;
  /** Document and chunk text this answer may carry (CAIRN_MAX_RESPONSE_TEXT_CHARS, as a GraphQL response). */
  budget: TextBudget;
}

/** A tool's answer: text for the model, plus the same data as JSON for programs. */
export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
}

/**
 * One Cairn tool. The single source of both the MCP registration and the function-calling export (`cairn tools`),
 * so the two can never drift. Arguments are the GraphQL input's fields, flattened; ranges are checked by the same
 * validation the resolvers use, so limits and error codes are GraphQL's.
 */
export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Written for a language model: when to call the tool and what it returns. */
  description: string;
  /** The role of the GraphQL field this tool mirrors (src/auth/fieldRoles.ts). */
  role: Role;
  /** True when the tool changes nothing. */
  readOnly: boolean;
  /** For write tools: whether it may overwrite what exists, and whether repeating a call changes nothing more. */
  writes?: { overwrites: boolean; idempotent: boolean };
  input: S;
  run(args: z.output<S>, context: ToolContext): Promise<ToolOutput>;
}

/** Declares a tool, keeping its argument types; the list of all tools holds them type-erased. */
export function defineTool<S extends z.ZodObject>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** `value` as plain JSON (dates become ISO strings), as MCP's structured content must be. */
export function toJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** An output whose text is its data as indented JSON. */
export function jsonOutput(structured: Record<string, unknown>): ToolOutput {
  const data = toJson(structured);
  return { text: JSON.stringify(data, null, 2), structured: data };
}
