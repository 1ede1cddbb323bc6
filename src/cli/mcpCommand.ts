import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LOCAL_PRINCIPAL } from '../auth/roles.js';
import type { Config } from '../config.js';
import { ErrorCode, isAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createMcpServer } from '../mcp/createMcpServer.js';
import { answerUnreadableLines } from '../mcp/unreadableLines.js';
import { createServices, type Services } from '../services.js';
import { CliError } from './cliErrors.js';

/** The refusal of a PGlite folder that a running server holds, turned into where the MCP client should connect. */
function folderHeldError(err: unknown, config: Config): unknown {
  if (!isAppError(err) || err.code !== ErrorCode.DATABASE_UNAVAILABLE || typeof err.details.lockFile !== 'string')
    return err;
  const { url, pid } = err.details;
  const endpoint =
    typeof url === 'string'
      ? `${url}/mcp`
      : `http://127.0.0.1:${config.port}/mcp (if it listens on CAIRN_PORT ${config.port})`;
  return new CliError(
    `the data folder ${config.dataDir} is held by a running Cairn process${typeof pid === 'number' ? ` (pid ${pid})` : ''}, ` +
      `and the embedded database allows one process per folder. Point your MCP client at that server instead: ${endpoint} ` +
      '(Streamable HTTP; see docs/agents.md), or stop the server to let `cairn mcp` open the folder.',
    { cause: err },
  );
}

const isRequest = (m: JSONRPCMessage): boolean => 'method' in m && 'id' in m;
// An error with id null answers a line that was never a request (see answerUnreadableLines): it closes none.
const isResponse = (m: JSONRPCMessage): boolean => 'id' in m && m.id !== null && ('result' in m || 'error' in m);

/** Counts the requests read and not yet answered; the returned function resolves once none is left. */
function trackRequests(transport: StdioServerTransport): () => Promise<void> {
  let open = 0;
  let idle: (() => void) | undefined;
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if (isRequest(message)) open++;
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(message);
    } finally {
      if (isResponse(message) && --open === 0) idle?.();
    }
  };
  return () => (open === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve)));
}

/**
 * `cairn mcp`: serves MCP over stdin/stdout for desktop clients that launch a command, as the local user (every
 * tool), on the embedded database or CAIRN_DATABASE_URL. Runs until the client closes stdin.
 */
export async function mcpCommand(config: Config, logger: Logger): Promise<number> {
  let services: Services;
  try {
    // Queued import jobs stay with the server; this process runs only the imports its own tools start.
    services = await createServices(config, logger, { importQueue: false });
  } catch (err) {
    throw folderHeldError(err, config);
  }
  await services.leadership.start();
  const server = createMcpServer(services, LOCAL_PRINCIPAL);
  // The client closing stdin, or stopping the process, ends the session; the database is closed either way, so the
  // embedded folder is left consistent and unlocked for the next launch.
  const transport = new StdioServerTransport();
  await server.connect(transport);
  answerUnreadableLines(transport);
  const answered = trackRequests(transport);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    // Piped input ends before its answers are out: the requests already read are answered first.
    process.stdin.once('end', () => void answered().then(resolve));
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  logger.info({ database: services.db.kind }, 'Cairn MCP server on stdio');
  await closed;
  await server.close().catch(() => undefined);
  await services.close();
  return 0;
}
