// The start-up suite's floors (startup.ts): the least a process can do before it answers HTTPS on the data dir
// Portico initialised. Run by Node as it is written (type stripping), without tsx:
//   node bench/startup-floor.ts https    a bare Node HTTPS server with the data dir's certificate
//   node bench/startup-floor.ts pglite   the same, once it has opened the data dir's embedded database as
//                                        Portico opens it (createPGliteDatabase), and nothing else
// with PORTICO_DATA_DIR and PORTICO_TRANSACTIONS_PORT set, as for `portico serve`. It answers every request 200.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';

const floor = process.argv[2];
const dataDir = process.env.PORTICO_DATA_DIR;
const port = Number(process.env.PORTICO_TRANSACTIONS_PORT);
if ((floor !== 'https' && floor !== 'pglite') || dataDir === undefined || !Number.isInteger(port)) {
  throw new Error(
    'usage: PORTICO_DATA_DIR=… PORTICO_TRANSACTIONS_PORT=… node bench/startup-floor.ts https|pglite',
  );
}

let close = (): Promise<void> => Promise.resolve();
if (floor === 'pglite') {
  const { createPGliteDatabase } = await import('../src/db/pglite-database.ts');
  const db = await createPGliteDatabase(join(dataDir, 'db'));
  await db.query('select 1');
  close = () => db.close();
}
// The certificate `portico serve` made in the data dir (http/tls.ts).
const server = createServer(
  {
    cert: readFileSync(join(dataDir, 'tls/localhost-cert.pem')),
    key: readFileSync(join(dataDir, 'tls/localhost-key.pem')),
  },
  (_request, response) => {
    response.end('ok');
  },
);
server.listen(port, '127.0.0.1');
// Closed as Portico closes it: the next start on this data dir finds it shut down cleanly.
process.once('SIGTERM', () => {
  server.close();
  void close().then(() => {
    process.exit(0);
  });
});
