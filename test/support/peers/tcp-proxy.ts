import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/**
 * What the proxy does with connections: pass them on, refuse them (every new one is reset at once and the open
 * ones are cut, as when the server is down or restarting), or swallow them (accepted and never answered, as
 * when packets to the server are dropped).
 */
export type ProxyMode = 'forward' | 'refuse' | 'blackhole';

export interface TcpProxy {
  /** The loopback port the proxy listens on. */
  readonly port: number;
  /** How many connections the proxy has accepted so far. */
  readonly accepted: number;
  /** Changes what happens to connections; `refuse` and `blackhole` also end the open ones. */
  setMode(mode: ProxyMode): void;
  /** Cuts every open connection and refuses new ones for `ms`, then forwards again. */
  refuseFor(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real TCP proxy on 127.0.0.1 in front of `target` (a PostgreSQL server), which a test can make refuse or
 * swallow connections to play a database outage, and then resume.
 *
 * @example
 * const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
 * await proxy.refuseFor(10_000);
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  let accepted = 0;
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    // The other side going away is what this proxy is for; its errors are expected.
    socket.on('error', () => undefined);
  };
  const cutAll = () => {
    for (const socket of open) socket.resetAndDestroy();
  };

  const server = createServer((client) => {
    accepted += 1;
    track(client);
    if (mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'blackhole') return;
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    // Either side ending or failing ends the other abruptly, as a lost connection does.
    client.on('close', () => upstream.resetAndDestroy());
    upstream.on('close', () => client.resetAndDestroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  const setMode = (next: ProxyMode) => {
    // Leaving `forward` cuts what was forwarded; leaving `blackhole` lets go of what it swallowed.
    if (next !== mode && (next !== 'forward' || mode === 'blackhole')) cutAll();
    mode = next;
  };
  return {
    port,
    get accepted() {
      return accepted;
    },
    setMode,
    async refuseFor(ms) {
      setMode('refuse');
      await new Promise((resolve) => setTimeout(resolve, ms));
      setMode('forward');
    },
    close: () =>
      new Promise<void>((resolve) => {
        cutAll();
        server.close(() => {
          resolve();
        });
      }),
  };
}
