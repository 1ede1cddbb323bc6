import { AsyncLocalStorage } from 'node:async_hooks';

/** Counts the attempts of the request whose async context the OpenAI SDK fetches in, for "after 3 attempts". */
export const attemptsOfRequest = new AsyncLocalStorage<{ attempts: number }>();

/** A fetch for the OpenAI SDK that counts attempts and hands it timeout errors of this realm. */
export const countingFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const counter = attemptsOfRequest.getStore();
  if (counter) counter.attempts++;
  return fetch(input, init).catch((err: unknown) => {
    // Inside a vm context (Jest) Node's DOMException fails the SDK's `instanceof Error`, and its timeout abort would
    // be reported as a plain connection failure: hand it an Error of this realm with the same name.
    if (err instanceof Error || typeof err !== 'object' || err === null) throw err;
    const { name, message } = err as { name?: unknown; message?: unknown };
    throw Object.assign(new Error(String(message), { cause: err }), { name: String(name) });
  });
};
