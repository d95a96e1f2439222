// The seal of completed documents: the credential read and checked at start (seal-credential.ts), and a PDF
// sealed as PAdES baseline B (pades.ts), checked by poppler's `pdfsig` as a fund's counsel would check it.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { generate } from 'selfsigned';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { sealedDocument, signedJob, useTempFolder } from '../../support/data/sealed-documents.ts';
import { useTestDatabase } from '../../support/db/use-test-database.ts';
import { startTimestampAuthority } from '../../support/peers/timestamp-authority.ts';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import pino from 'pino';
import { ConfigError } from '../../../src/config.ts';
import { seedTransactionsDemo } from '../../../src/demo/seed.ts';
import { createLocalFileStore } from '../../../src/files/local-file-store.ts';
import { createDocumentWorkers } from '../../../src/transactions/documents/document-workers.ts';
import { loadSealCredential } from '../../../src/transactions/evidence/seal-credential.ts';

const run = promisify(execFile);
const database = useTestDatabase();
const folder = useTempFolder('portico-seal-');
const dir = () => folder.path();

/** What `pdfsig` says of a file (it exits non-zero for a file whose signature does not hold). */
async function pdfsig(pdf: Uint8Array): Promise<string> {
  const path = join(dir(), `checked-${String(Math.random()).slice(2)}.pdf`);
  await writeFile(path, pdf);
  const answer = await run('pdfsig', ['-nocert', path]).catch(
    (error: unknown) => error as { stdout?: string; stderr?: string },
  );
  return `${answer.stdout ?? ''}${answer.stderr ?? ''}`;
}

/** The seal's CMS of a sealed PDF, read from its /Contents. */
function sealOf(pdf: Uint8Array): pkijs.SignedData {
  const text = Buffer.from(pdf).toString('latin1');
  const [, , from, to] = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/.exec(text) ?? [];
  const hex = text.slice(Number(from) + 1, Number(to) - 1);
  const info = new pkijs.ContentInfo({
    schema: asn1js.fromBER(new Uint8Array(Buffer.from(hex, 'hex'))).result,
  });
  return new pkijs.SignedData({ schema: info.content });
}

/** When the timestamp token of a seal says its signature was made, if it has one. */
function timestampOf(pdf: Uint8Array): Date | undefined {
  const attribute = sealOf(pdf).signerInfos[0]?.unsignedAttrs?.attributes.find(
    (each) => each.type === '1.2.840.113549.1.9.16.2.14',
  );
  if (attribute === undefined) return undefined;
  const token = new pkijs.SignedData({
    schema: new pkijs.ContentInfo({ schema: attribute.values[0] }).content,
  });
  const content = token.encapContentInfo.eContent?.getValue() ?? new ArrayBuffer(0);
  return pkijs.TSTInfo.fromBER(content).genTime;
}

/** PEM files of a certificate made for the test, with `options` of selfsigned's. */
async function pemFiles(
  name: string,
  options: Parameters<typeof generate>[1] & { keyUsage?: Record<string, boolean> },
): Promise<{ sealCert: string; sealKey: string; pems: Awaited<ReturnType<typeof generate>> }> {
  const { keyUsage = { digitalSignature: true, nonRepudiation: true }, ...rest } = options;
  const pems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ...rest,
    extensions: [{ name: 'keyUsage', critical: true, ...keyUsage }],
  });
  const sealCert = join(dir(), `${name}-cert.pem`);
  const sealKey = join(dir(), `${name}-key.pem`);
  await writeFile(sealCert, pems.cert);
  await writeFile(sealKey, pems.private);
  return { sealCert, sealKey, pems };
}

describe('the seal of completed documents', () => {
  it('makes a self-signed seal once for a data dir, and uses it again on the next start', async () => {
    const dataDir = join(dir(), 'data');
    const first = await loadSealCredential({ dataDir });
    expect(first).toMatchObject({ selfSigned: true, key: { type: 'EC', namedCurve: 'P-256' } });
    expect(first.name).toBe(`Portico document seal (${dataDir})`);
    const again = await loadSealCredential({ dataDir });
    expect(Buffer.from(again.certificates[0] ?? []).equals(Buffer.from(first.certificates[0] ?? []))).toBe(
      true,
    );
    expect(
      (await readFile(join(dataDir, 'seal', 'seal-cert.pem'), 'utf8')).startsWith(
        '-----BEGIN CERTIFICATE-----',
      ),
    ).toBe(true);
  });

  it('seals a PDF that pdfsig finds signed as ETSI.CAdES.detached, valid, and covering the whole file', async () => {
    const credential = await loadSealCredential({ dataDir: join(dir(), 'data') });
    const report = await pdfsig(await sealedDocument(credential));
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain(`Signer Certificate Common Name: ${credential.name}`);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
  });

  it('lets pdfsig see a sealed document changed afterwards, by one byte', async () => {
    const credential = await loadSealCredential({ dataDir: join(dir(), 'data') });
    const pdf = await sealedDocument(credential);
    const text = Buffer.from(pdf).toString('latin1');
    const at = text.indexOf('/Producer');
    expect(at).toBeGreaterThan(0);
    const changed = Buffer.from(pdf);
    changed[at + 1] = 'Q'.charCodeAt(0);
    const report = await pdfsig(changed);
    expect(report).not.toContain('Signature is Valid.');
    expect(report).toMatch(/Signature Validation: (Digest Mismatch|Signature is Invalid)/);
  });

  it('seals with an RSA key from a PKCS#12 file encrypted with 3DES, as Windows exports them, and its password', async () => {
    const { pems } = await pemFiles('Fund I seal', { keyType: 'rsa', keySize: 2048 });
    const p12 = forge.pkcs12.toPkcs12Asn1(
      forge.pki.privateKeyFromPem(pems.private),
      [forge.pki.certificateFromPem(pems.cert)],
      'correct horse',
      { algorithm: '3des' },
    );
    const sealP12 = join(dir(), 'fund.p12');
    await writeFile(sealP12, Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'));
    const credential = await loadSealCredential({
      dataDir: dir(),
      sealP12,
      sealP12Password: 'correct horse',
    });
    expect(credential).toMatchObject({ name: 'Fund I seal', selfSigned: false, key: { type: 'RSA' } });
    expect(await pdfsig(await sealedDocument(credential))).toContain(
      'Signature Validation: Signature is Valid.',
    );

    const wrong = loadSealCredential({ dataDir: dir(), sealP12, sealP12Password: 'wrong' });
    await expect(wrong).rejects.toThrow(ConfigError);
    await expect(wrong).rejects.toThrow(
      `PORTICO_SEAL_P12: the password (PORTICO_SEAL_P12_PASSWORD) does not open ${sealP12}`,
    );
  });

  it('stops the start with one line for a certificate that expired, one its key does not match, and one that cannot sign', async () => {
    const day = 24 * 3600 * 1000;
    const expired = await pemFiles('Expired seal', {
      notBeforeDate: new Date(Date.now() - 30 * day),
      notAfterDate: new Date(Date.now() - day),
    });
    await expect(loadSealCredential({ dataDir: dir(), ...expired })).rejects.toThrow(
      /^PORTICO_SEAL_CERT\/PORTICO_SEAL_KEY: the certificate "Expired seal" expired on \d{4}-\d\d-\d\dT.*: renew it$/,
    );
    const other = await pemFiles('Other seal', {});
    await expect(
      loadSealCredential({ dataDir: dir(), sealCert: other.sealCert, sealKey: expired.sealKey }),
    ).rejects.toThrow(
      'PORTICO_SEAL_CERT/PORTICO_SEAL_KEY: the private key does not match the certificate ("Other seal")',
    );
    const authority = await pemFiles('Issuing only', { keyUsage: { keyCertSign: true, cRLSign: true } });
    await expect(loadSealCredential({ dataDir: dir(), ...authority })).rejects.toThrow(
      'the certificate "Issuing only" cannot sign documents: its key usage allows keyCertSign, cRLSign, not digitalSignature or nonRepudiation',
    );
  });

  it("seals the signed copy a transaction's last signature makes, and leaves a preview unsealed", async () => {
    const credential = await loadSealCredential({ dataDir: join(dir(), 'data') });
    const workers = createDocumentWorkers({ seal: credential, threads: 1 });
    try {
      const files = createLocalFileStore(join(dir(), 'files'));
      const demo = await seedTransactionsDemo(database.db, files, 'staging', {
        handle: `seal-${String(Date.now())}`,
        workers,
      });
      const [signed] = await database.db.query<{ storageKey: string }>(
        `select f.storage_key as "storageKey" from transaction_signature_files s join files f on f.id = s.file_id
         where s.transaction_id = $1`,
        [demo.transactionId],
      );
      const opened = await files.open(signed?.storageKey ?? '');
      if (opened === undefined) throw new Error('the signed copy is not in the file store');
      const bytes = await buffer(opened.stream);
      const report = await pdfsig(bytes);
      expect(report).toContain('Signature Validation: Signature is Valid.');
      expect(report).toContain('Total document signed');

      const preview = await workers.render({
        organizationId: demo.organizationId,
        transactionId: demo.transactionId,
        name: 'Subscription agreement',
        preview: true,
        signedBy: ['investor'],
        signatures: [],
        sections: [],
      });
      expect(await pdfsig(preview)).toContain('does not contain any signatures');
    } finally {
      await workers.close();
    }
  });

  it('timestamps a seal at the timestamp authority, which pdfsig still finds valid, and goes without one, saying why, when the authority refuses', async () => {
    const credential = await loadSealCredential({ dataDir: join(dir(), 'data') });
    const authority = await startTimestampAuthority();
    const said: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => said.push(line) });
    const workers = createDocumentWorkers({
      seal: credential,
      threads: 1,
      timestampAuthority: authority.url,
      logger,
    });
    const job = signedJob;
    try {
      const before = Date.now();
      const stamped = await workers.render(job);
      expect(authority.requests).toBe(1);
      expect(timestampOf(stamped)?.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(await pdfsig(stamped)).toContain('Signature Validation: Signature is Valid.');

      authority.mode = 'refuse';
      const refused = await workers.render(job);
      expect(timestampOf(refused)).toBeUndefined();
      expect(await pdfsig(refused)).toContain('Signature Validation: Signature is Valid.');
      expect(said.join('')).toContain('the timestamp authority refused the request (status 2)');
    } finally {
      await workers.close();
      await authority.close();
    }
  });
});
