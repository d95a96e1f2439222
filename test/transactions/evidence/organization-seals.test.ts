// Each organization's own seal (seal-keeper.ts): the folder PORTICO_SEAL_DIR names, read and checked at start,
// and each signed document sealed with its organization's seal, else the instance's.
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import forge from 'node-forge';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config.ts';
import type { Database } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { createLocalFileStore } from '../../../src/files/local-file-store.ts';
import {
  createDocumentWorkers,
  type DocumentWorkers,
} from '../../../src/transactions/documents/document-workers.ts';
import { loadSealFolder, loadSeals, sealKeeper } from '../../../src/transactions/evidence/seal-keeper.ts';
import { verifySeal } from '../../../src/transactions/evidence/verify-seal.ts';
import { recipientOf, signDocument } from '../../../src/transactions/recipients/actions.ts';
import { applyEvent, lockTransaction } from '../../../src/transactions/transitions.ts';
import { useTempFolder } from '../../support/data/sealed-documents.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { useTestDatabase } from '../../support/db/use-test-database.ts';

const database = useTestDatabase();
const folder = useTempFolder('portico-organization-seals-');
const day = 24 * 3600 * 1000;

/** A seal's certificate and RSA key made for the test, valid from `from` until `to`. */
function sealCertificate(name: string, validity: { from?: Date; to?: Date } = {}) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.rsa.setPublicKey(key.n, key.e);
  certificate.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(8))}`;
  certificate.validity.notBefore = validity.from ?? new Date(Date.now() - 60_000);
  certificate.validity.notAfter = validity.to ?? new Date(Date.now() + 365 * day);
  certificate.setSubject([{ name: 'commonName', value: name }]);
  certificate.setIssuer([{ name: 'commonName', value: name }]);
  certificate.setExtensions([
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
  ]);
  certificate.sign(key, forge.md.sha256.create());
  return {
    certPem: forge.pki.certificateToPem(certificate),
    keyPem: forge.pki.privateKeyToPem(key),
    p12: (password: string) =>
      Buffer.from(
        forge.asn1
          .toDer(forge.pkcs12.toPkcs12Asn1(key, [certificate], password, { algorithm: '3des' }))
          .getBytes(),
        'binary',
      ),
  };
}

/** A new empty folder under the test's own. */
async function newFolder(name: string): Promise<string> {
  const path = join(folder.path(), name);
  await mkdir(path, { recursive: true });
  return path;
}

/** A logger whose lines are kept, parsed. */
function keptLogger() {
  const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines, text: () => JSON.stringify(lines) };
}

/**
 * The sponsor approves a submitted transaction and countersigns its agreement, which completes it: the signed
 * copy is made by `workers`. Returns what the copy's seal proves.
 */
async function countersigned(
  db: Database,
  files: FileStore,
  transaction: { id: string; organizationId: string },
  workers: DocumentWorkers,
) {
  await db.transaction(async (tx) => {
    const subject = await lockTransaction(tx, transaction);
    if (!subject) throw new ConfigError('the transaction is gone');
    await applyEvent(tx, subject, 'approve', { type: 'system', id: null });
    const countersigner = await recipientOf(tx, transaction.id, 'countersigner');
    if (!countersigner) throw new ConfigError('approval added no countersigner');
    const signed = await signDocument(tx, subject, {
      signer: countersigner,
      documentKey: 'subscription_agreement',
      signedName: 'Alex Morgan',
      consent: true,
      context: { ipAddress: '127.0.0.1', userAgent: 'Portico test' },
      files,
      workers,
    });
    expect(signed.state).toBe('COMPLETED');
  });
  const [copy] = await db.query<{ storageKey: string }>(
    `select f.storage_key as "storageKey" from transaction_signature_files s join files f on f.id = s.file_id
     where s.transaction_id = $1 and s.organization_id = $2`,
    [transaction.id, transaction.organizationId],
  );
  const opened = await files.open(copy?.storageKey ?? '');
  if (opened === undefined) throw new ConfigError('the signed copy is not in the file store');
  return verifySeal(new Uint8Array(await buffer(opened.stream)));
}

describe("each organization's own seal", () => {
  it("seals an organization's documents with its own seal from the folder, and another's with the instance's", async () => {
    const { db } = database;
    const files = createLocalFileStore(join(folder.path(), 'files'));
    const own = await organizationStory(db, files, { transactions: ['submitted'] });
    const other = await organizationStory(db, files, { transactions: ['submitted'] });
    const sealDir = await newFolder('seals');
    const fund = sealCertificate('Fund A document seal');
    await writeFile(join(sealDir, `${own.handle}.p12`), fund.p12('correct horse'));
    // As an editor or `echo` writes it: the line ending is not part of the password.
    await writeFile(join(sealDir, `${own.handle}.p12.password`), 'correct horse\n');
    // What a Kubernetes secret is mounted with, and a hidden file: not seals, and not refused.
    await mkdir(join(sealDir, '..data'));
    await writeFile(join(sealDir, '.DS_Store'), '');

    const said = keptLogger();
    const seals = await loadSeals({ dataDir: join(folder.path(), 'data'), sealDir }, said.logger);
    const workers = createDocumentWorkers({ seals: await sealKeeper(db, seals, said.logger), threads: 1 });
    try {
      const ownCheck = await countersigned(
        db,
        files,
        { id: own.transactionId, organizationId: own.organizationId },
        workers,
      );
      const otherCheck = await countersigned(
        db,
        files,
        { id: other.transactionId, organizationId: other.organizationId },
        workers,
      );
      expect(ownCheck).toMatchObject({ ok: true, signer: 'Fund A document seal' });
      expect(otherCheck).toMatchObject({ ok: true, signer: seals.instance.name });
      expect(seals.instance.name).not.toBe('Fund A document seal');
    } finally {
      await workers.close();
    }
    const told = said.lines.find((line) => Array.isArray(line.organizations));
    expect(told?.organizations).toEqual([own.handle]);
    expect(said.text()).not.toContain('correct horse');
    expect(said.text()).not.toContain('PRIVATE KEY');
  });

  it('stops the start with one line naming the file, for a wrong password, a key that does not match, and an expired certificate', async () => {
    const wrongPassword = await newFolder('wrong-password');
    await writeFile(join(wrongPassword, 'fund-a.p12'), sealCertificate('Fund A').p12('correct horse'));
    await writeFile(join(wrongPassword, 'fund-a.p12.password'), 'battery staple\n');
    const p12 = join(wrongPassword, 'fund-a.p12');
    await expect(loadSealFolder(wrongPassword)).rejects.toThrow(
      new ConfigError(`${p12}: the password (${p12}.password) does not open ${p12}`),
    );

    const mismatch = await newFolder('mismatch');
    await writeFile(join(mismatch, 'fund-b.cert.pem'), sealCertificate('Fund B').certPem);
    await writeFile(join(mismatch, 'fund-b.key.pem'), sealCertificate('Someone else').keyPem);
    await expect(loadSealFolder(mismatch)).rejects.toThrow(
      new ConfigError(
        `${join(mismatch, 'fund-b.cert.pem')}: the private key does not match the certificate ("Fund B")`,
      ),
    );

    const expired = await newFolder('expired');
    const old = sealCertificate('Fund C', {
      from: new Date(Date.now() - 30 * day),
      to: new Date(Date.now() - day),
    });
    await writeFile(join(expired, 'fund-c.cert.pem'), old.certPem);
    await writeFile(join(expired, 'fund-c.key.pem'), old.keyPem);
    // A good seal beside it does not hide it.
    const good = sealCertificate('Fund D');
    await writeFile(join(expired, 'fund-d.cert.pem'), good.certPem);
    await writeFile(join(expired, 'fund-d.key.pem'), good.keyPem);
    await expect(loadSealFolder(expired)).rejects.toThrow(
      new RegExp(
        `^${join(expired, 'fund-c.cert.pem')}: the certificate "Fund C" expired on \\d{4}-\\d\\d-\\d\\dT[^\\n]*: renew it$`,
      ),
    );
  });

  it('stops the start for a file that is not a seal, a PKCS#12 file without its password file, and a certificate without its key', async () => {
    const stray = await newFolder('stray');
    await writeFile(join(stray, 'fund-a.pfx'), '');
    await expect(loadSealFolder(stray)).rejects.toThrow(
      `PORTICO_SEAL_DIR: ${join(stray, 'fund-a.pfx')} is not a seal: name each seal <handle>.p12 with its password in <handle>.p12.password, or <handle>.cert.pem with <handle>.key.pem`,
    );

    const noPassword = await newFolder('no-password');
    await writeFile(join(noPassword, 'fund-a.p12'), sealCertificate('Fund A').p12(''));
    await expect(loadSealFolder(noPassword)).rejects.toThrow(
      `PORTICO_SEAL_DIR: ${join(noPassword, 'fund-a.p12')} has no password file ${join(noPassword, 'fund-a.p12.password')}`,
    );
    // An empty password file is the empty password.
    await writeFile(join(noPassword, 'fund-a.p12.password'), '');
    expect((await loadSealFolder(noPassword)).get('fund-a')?.seal.name).toBe('Fund A');

    const halfPair = await newFolder('half-pair');
    await writeFile(join(halfPair, 'fund-b.cert.pem'), sealCertificate('Fund B').certPem);
    await expect(loadSealFolder(halfPair)).rejects.toThrow(
      `PORTICO_SEAL_DIR: ${join(halfPair, 'fund-b.cert.pem')} has no ${join(halfPair, 'fund-b.key.pem')} to go with it`,
    );
  });

  it('warns of a seal whose handle names no organization, and starts, sealing with the instance’s', async () => {
    const sealDir = await newFolder('unknown-handle');
    const seal = sealCertificate('Nobody yet');
    await writeFile(join(sealDir, 'nobody-yet-0a1b.cert.pem'), seal.certPem);
    await writeFile(join(sealDir, 'nobody-yet-0a1b.key.pem'), seal.keyPem);
    const said = keptLogger();
    const seals = await loadSeals({ dataDir: join(folder.path(), 'data'), sealDir }, said.logger);
    expect(seals.byHandle.get('nobody-yet-0a1b')?.seal.name).toBe('Nobody yet');
    const keeper = await sealKeeper(database.db, seals, said.logger);

    const warned = said.lines.find((line) => line.level === 40);
    expect(warned).toMatchObject({
      handle: 'nobody-yet-0a1b',
      file: join(sealDir, 'nobody-yet-0a1b.cert.pem'),
    });
    expect(warned?.msg).toContain('names no organization');
    expect(keeper.sealFor('00000000-0000-4000-8000-000000000099')).toBe(seals.instance);
    expect(said.text()).not.toContain('PRIVATE KEY');
  });
});
