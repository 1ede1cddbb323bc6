import net from 'node:net';

let installed = false;

/**
 * Turns Nagle's algorithm off for outgoing TCP sockets. neo4j-driver opens its sockets with `net.connect` and no
 * options, so a request over ~2 KB waits for the peer's delayed ACK (the effect on graph reads: bench/RESULTS.md).
 * Other clients in the process (pg, fetch) already disable Nagle, so this only changes the Bolt sockets in practice.
 */
export function enableTcpNoDelay(): void {
  if (installed) return;
  installed = true;
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function patchedConnect(this: net.Socket, ...args: Parameters<typeof connect>) {
    this.setNoDelay(true);
    return connect.apply(this, args);
  } as typeof connect;
}
