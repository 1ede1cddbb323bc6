import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/roles.js';
import { badInput } from '../errors.js';
import { projectPath } from '../paths.js';
import type { Services } from '../services.js';
import { callTool, toolsFor } from './callTool.js';
import { protocolError } from './protocolErrors.js';
import { ANSWER_PROMPT, getAnswerPrompt } from './prompts.js';
import { invalidParamsResponse } from './requestParams.js';
import { RESOURCE_TEMPLATES, listResources, readResource } from './resources.js';
import { argumentsSchema } from './tools.js';
import type { ToolDefinition } from './toolDefinition.js';

const INSTRUCTIONS =
  'Cairn is a knowledge base of documents and a knowledge graph. To answer a question, call enrich_context first: it ' +
  'returns cited passages and related entities in one context. Use search and get_document to dig into documents, ' +
  'find_entities, entity_neighbors and shortest_path to explore the graph.';

let version: string | undefined;
const cairnVersion = (): string =>
  (version ??= (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }).version);

const listed = new Map<string, Tool>();

/** A tool as tools/list shows it (built once per tool: the schemas never change). */
function listedTool(tool: ToolDefinition): Tool {
  let entry = listed.get(tool.name);
  if (!entry) {
    entry = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: argumentsSchema(tool),
      annotations: {
        title: tool.title,
        readOnlyHint: tool.readOnly,
        ...(tool.writes ? { destructiveHint: tool.writes.overwrites, idempotentHint: tool.writes.idempotent } : {}),
        openWorldHint: tool.name === 'import_url',
      },
    };
    listed.set(tool.name, entry);
  }
  return entry;
}

/** Runs `fn`, turning its failure into a JSON-RPC error with Cairn's code (see protocolError). */
async function orProtocolError<T>(services: Services, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw protocolError(err, services.logger, what);
  }
}

/** The SDK's server, refusing a request whose params do not fit its method as Invalid params with a readable message. */
class CairnMcpServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const refusal = invalidParamsResponse(message);
      if (!refusal) deliver?.(message, extra);
      else transport.send(refusal).catch((err: unknown) => this.onerror?.(err as Error));
    };
  }
}

/**
 * An MCP server (the SDK's) answering for one principal: the tools it may call, the documents and entities as
 * resources, and the "answer with Cairn context" prompt. Over HTTP one is built per request, for the request's key.
 */
export function createMcpServer(services: Services, principal: Principal): Server {
  const server = new CairnMcpServer(
    { name: 'cairn', title: 'Cairn', version: cairnVersion() },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolsFor(principal).map(listedTool) }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(services, principal, request.params.name, request.params.arguments),
  );
  server.setRequestHandler(ListResourcesRequestSchema, (request) =>
    orProtocolError(services, 'resources/list', () => listResources(services, principal, request.params?.cursor)),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    orProtocolError(services, 'resources/read', () => readResource(services, principal, request.params.uri)),
  );
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [ANSWER_PROMPT] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) =>
    orProtocolError(services, 'prompts/get', async () => {
      if (request.params.name !== ANSWER_PROMPT.name)
        throw badInput(
          'name',
          `there is no prompt "${request.params.name.slice(0, 100)}"; the prompt is ${ANSWER_PROMPT.name}`,
        );
      return getAnswerPrompt(services, principal, request.params.arguments);
    }),
  );
  return server;
}
