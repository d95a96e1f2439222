// The floor of the served suite, in a process of its own as `portico serve` is: the same base app (HTTPS-only
// server, request ids, error handler) on the same certificate and PostgreSQL schema, answering the reference
// query's body with one hand-written statement (floor.ts), without auth, limits, metrics or GraphQL.
// Run by served.ts: `node bin/run-ts.js bench/served-floor.ts` with DATABASE_URL, PORTICO_DATA_DIR (a served
// process's, whose certificate it uses) and PORT; it prints `listening` once it answers.
import { createPostgresDatabase } from '../src/db/postgres-database.ts';
import { loadTlsMaterial } from '../src/http/tls.ts';
import { buildFloorApp } from './floor.ts';

const { DATABASE_URL: url, PORTICO_DATA_DIR: dataDir, PORT: port } = process.env;
if (url === undefined || dataDir === undefined || port === undefined) {
  throw new Error('served-floor.ts needs DATABASE_URL, PORTICO_DATA_DIR and PORT');
}
const db = createPostgresDatabase({ connectionString: url });
const tls = await loadTlsMaterial({ dataDir, tlsCert: undefined, tlsKey: undefined });
const app = await buildFloorApp({ db, tls });
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => db.close())
    .finally(() => process.exit(0));
});
console.log('listening');
