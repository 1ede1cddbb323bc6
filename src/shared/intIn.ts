import { badInput } from '../errors.js';

/** An integer argument with a default, checked against its range (BAD_USER_INPUT naming `field` otherwise). */
export function intIn(
  value: number | null | undefined,
  fallback: number,
  min: number,
  max: number,
  field: string,
): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) throw badInput(field, `must be an integer from ${min} to ${max}`);
  return v;
}
