import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { requireRole, roleAtLeast, type Principal } from '../auth/roles.js';
import { actorOf } from '../audit/actorOf.js';
import { runAs } from '../audit/actor.js';
import { allowReplicaReads } from '../db/readRoute.js';
import { badInput } from '../errors.js';
import { TextBudget } from '../graphql/TextBudget.js';
import type { Services } from '../services.js';
import { argumentsError, failureResult, toolError } from './toolErrors.js';
import { CAIRN_TOOLS, findTool } from './tools.js';
import type { ToolDefinition } from './toolDefinition.js';

/** The tools this principal may call (a reader sees no search, an agent no writes). */
export function toolsFor(principal: Principal): ToolDefinition[] {
  return CAIRN_TOOLS.filter((t) => roleAtLeast(principal.role, t.role));
}

/**
 * Runs one tool call: checks the role, parses the arguments, runs the tool with a fresh text budget. Every failure,
 * bad input included, comes back as a tool error (isError) with Cairn's code, never as a protocol error.
 */
export async function callTool(
  services: Services,
  principal: Principal,
  name: string,
  args: unknown,
): Promise<CallToolResult> {
  const tool = findTool(name);
  // An unknown name lists the tools this key may call, not every tool (tools/list shows the same).
  if (!tool)
    return toolError(
      badInput(
        'name',
        `there is no tool "${name.slice(0, 100)}"; the tools are ${toolsFor(principal)
          .map((t) => t.name)
          .join(', ')}`,
      ),
    );
  try {
    requireRole(principal, tool.role, `The ${tool.name} tool`);
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) return toolError(argumentsError(parsed.error));
    // A reading tool's statements may go to a read replica, and read the spaces its space reads, as a query's do.
    if (tool.readOnly) {
      allowReplicaReads();
      await services.spaceReads.widen();
    }
    const output = await runAs(actorOf(principal), () =>
      tool.run(parsed.data, {
        services,
        principal,
        budget: new TextBudget(services.config.maxResponseTextChars),
      }),
    );
    return { content: [{ type: 'text', text: output.text }], structuredContent: output.structured };
  } catch (err) {
    return failureResult(err, services.logger, tool.name);
  }
}
