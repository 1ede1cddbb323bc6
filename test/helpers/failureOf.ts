import { expect } from '@jest/globals';
import { AppError } from '../../src/errors.js';

/** Awaits a promise that must reject with an AppError, and returns that error. */
export async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}
