import { AsyncResource } from 'node:async_hooks';

/**
 * The async context a long-lived worker was built in. Work a request only sets off (a nudge after a write) runs in
 * it rather than in the request's, so no request's space, actor, read route or statement count travels into work
 * that serves every request.
 */
export class OwnContext {
  readonly #resource = new AsyncResource('cairn.worker');

  /** Runs `fn`, and everything it starts, in the context the worker was built in. */
  run<T>(fn: () => T): T {
    return this.#resource.runInAsyncScope(fn);
  }
}
