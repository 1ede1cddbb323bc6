import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

/** Structured JSON logger used across Cairn. */
export type Logger = PinoLogger;

/** How the process logger writes. */
export interface LoggerOptions {
  /** Human-readable lines (pino-pretty) instead of JSON: for a terminal, never for production log collectors. */
  pretty?: boolean;
  /** Where pretty lines go (default: stdout). */
  destination?: NodeJS.WritableStream;
  /** JSON lines on stderr: for a process whose stdout carries a protocol (`cairn mcp`). */
  stderr?: boolean;
}

/** Pretty logs for a person at a terminal; JSON in production and whenever stdout is a pipe or a file (collectors). */
export function wantsPrettyLogs(env: 'development' | 'production' | 'test', stdoutIsTTY: boolean): boolean {
  return env !== 'production' && stdoutIsTTY;
}

type PrettyFactory = (options: {
  colorize?: boolean;
  translateTime?: string;
  ignore?: string;
  sync?: boolean;
  destination?: NodeJS.WritableStream;
}) => DestinationStream;

/** pino-pretty's stream when it is installed (a development dependency: an image built without it logs JSON). */
function prettyStream(destination: NodeJS.WritableStream | undefined): DestinationStream | undefined {
  try {
    const pretty = createRequire(import.meta.url)('pino-pretty') as PrettyFactory;
    return pretty({
      colorize: destination === undefined,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service,request',
      sync: true,
      ...(destination ? { destination } : {}),
    });
  } catch {
    return undefined;
  }
}

/** Creates the process logger at the given level: JSON lines on stdout, or pretty lines when asked and available. */
export function createLogger(level: string = 'info', options: LoggerOptions = {}): Logger {
  const settings = { level, base: { service: 'cairn' }, timestamp: pino.stdTimeFunctions.isoTime };
  const stream = options.pretty ? prettyStream(options.destination) : undefined;
  if (stream) return pino(settings, stream);
  return options.stderr ? pino(settings, pino.destination(2)) : pino(settings);
}

/** A logger that discards everything, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
