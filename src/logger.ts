import { pino, type Logger as PinoLogger } from 'pino';

/** Structured JSON logger used across Cairn. */
export type Logger = PinoLogger;

/** Creates the process logger at the given level (JSON lines on stdout). */
export function createLogger(level: string = 'info'): Logger {
  return pino({ level, base: { service: 'cairn' }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** A logger that discards everything, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
