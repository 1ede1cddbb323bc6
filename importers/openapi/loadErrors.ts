import { AppError, ErrorCode, redactAndTruncate } from '../../src/errors.js';

/** One validator finding: where (a JSON pointer) and what. */
export interface SpecProblem {
  location: string;
  message: string;
}

const MAX_LISTED = 8;

function ajvProblems(details: unknown): SpecProblem[] {
  if (!Array.isArray(details)) return [];
  const out: SpecProblem[] = [];
  const seen = new Set<string>();
  for (const d of details) {
    if (typeof d !== 'object' || d === null) continue;
    const e = d as { instancePath?: unknown; message?: unknown; params?: unknown };
    const location = `#${typeof e.instancePath === 'string' && e.instancePath !== '' ? e.instancePath : '/'}`;
    let message = typeof e.message === 'string' ? e.message : 'is invalid';
    const params = e.params as
      { additionalProperty?: unknown; unevaluatedProperty?: unknown; allowedValues?: unknown } | undefined;
    const extra = params?.additionalProperty ?? params?.unevaluatedProperty;
    if (typeof extra === 'string') message += ` ("${extra}")`;
    if (params && Array.isArray(params.allowedValues)) message += `: ${params.allowedValues.map(String).join(', ')}`;
    const key = `${location} ${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ location, message });
    }
  }
  return out;
}

/** The pointer or path a swagger-parser / json-schema-ref-parser message names, if any. */
function locationIn(message: string): string | undefined {
  const pointer = /"(#\/[^"]*)"/.exec(message);
  if (pointer) return pointer[1];
  const path = /(\/(?:paths|definitions|components|webhooks)\/\S+?)(?=[\s,.]*(?:\s|$))/.exec(message);
  return path?.[1];
}

/**
 * The actionable error for a spec too deep for the recursive bundler, dereferencer or validator: their own message
 * is a stack overflow or names an option Cairn does not expose. assertSpecShape catches the plain cases first.
 */
function tooDeepError(err: unknown, raw: string): AppError | undefined {
  const limit = /Maximum dereference depth \((\d+)\) exceeded at (\S+?)\.?(?:\s|$)/.exec(raw);
  if (limit) {
    const location = limit[2]!;
    return new AppError(
      ErrorCode.INVALID_OPENAPI,
      `The spec nests deeper than ${limit[1]} levels once its $refs are followed (at ${redactAndTruncate(location)}); no real API needs that: check the generator that wrote it, or flatten the nesting`,
      { location: location.slice(0, 1000), reason: 'too_deep' },
      { cause: err },
    );
  }
  if (!/Maximum call stack size exceeded/.test(raw)) return undefined;
  return new AppError(
    ErrorCode.INVALID_OPENAPI,
    "The spec's $refs form a cycle with no schema in it or nest too deeply to resolve; make each $ref point at a schema and keep nesting shallow",
    { reason: 'too_deep' },
    { cause: err },
  );
}

/** Maps a swagger-parser failure to AppError INVALID_OPENAPI carrying the validator's message and location. */
export function toInvalidOpenApi(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const raw = err instanceof Error ? err.message : String(err);
  const problems = ajvProblems((err as { details?: unknown } | null)?.details);
  if (problems.length > 0) {
    // Ajv lists every failed branch of a oneOf; the first findings are the informative ones.
    const listed = problems.slice(0, MAX_LISTED).map((p) => `${p.location} ${p.message}`);
    const more = problems.length > MAX_LISTED ? ` (and ${problems.length - MAX_LISTED} more)` : '';
    return new AppError(ErrorCode.INVALID_OPENAPI, `The spec does not validate: ${listed.join('; ')}${more}`, {
      location: problems[0]!.location,
      problems: problems.slice(0, 50),
    });
  }
  const deep = tooDeepError(err, raw);
  if (deep) return deep;
  const message = raw.replace(/\s+/g, ' ').trim().slice(0, 2000);
  const location = locationIn(raw);
  return new AppError(ErrorCode.INVALID_OPENAPI, `The spec is invalid: ${message}`, location ? { location } : {}, {
    cause: err,
  });
}
