import { pino, type Logger as PinoLogger } from 'pino';

/** Structured JSON logger used across Cairn. */
export type Logger = PinoLogger;

/**
 * Creates the process logger at the given level: JSON lines on stdout, or on stderr for a process whose stdout
 * carries a protocol (`cairn mcp`).
 */
export function createLogger(level: string = 'info', stream: 'stdout' | 'stderr' = 'stdout'): Logger {
  const options = { level, base: { service: 'cairn' }, timestamp: pino.stdTimeFunctions.isoTime };
  return stream === 'stderr' ? pino(options, pino.destination(2)) : pino(options);
}

/** A logger that discards everything, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
