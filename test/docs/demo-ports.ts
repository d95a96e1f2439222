// Loaded by the guides' TypeScript examples (`node --import`, as Node.js strips its types): sends `localhost:4000` and `localhost:4001`, the
// demo's ports the guides name, to the services the test started on free ports, as curl's `connect-to` does for
// the shell examples. PORTICO_EXAMPLE_PORTS maps each demo port to its service's, e.g. {"4000": 41523}.
import { Agent, buildConnector, setGlobalDispatcher } from 'undici';

const ports = JSON.parse(process.env['PORTICO_EXAMPLE_PORTS'] ?? '{}') as Record<string, number | undefined>;
const connect = buildConnector({});
setGlobalDispatcher(
  new Agent({
    connect: (options, callback) => {
      const port = ports[options.port];
      if (options.hostname !== 'localhost' || port === undefined) connect(options, callback);
      else
        connect({ ...options, hostname: '127.0.0.1', servername: 'localhost', port: String(port) }, callback);
    },
  }),
);
