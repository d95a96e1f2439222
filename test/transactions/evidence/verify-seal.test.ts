// Checking a sealed PDF offline (verify-seal.ts), as `portico verify` and a fund's counsel do: what holds, and the
// first thing that does not, in words.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import forge from 'node-forge';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { sealedDocument, signedJob, useTempFolder } from '../../support/data/sealed-documents.ts';
import { createDocumentWorkers } from '../../../src/transactions/documents/document-workers.ts';
import { loadSealCredential } from '../../../src/transactions/evidence/seal-credential.ts';
import { verifySeal } from '../../../src/transactions/evidence/verify-seal.ts';
import { startTimestampAuthority } from '../../support/peers/timestamp-authority.ts';

const folder = useTempFolder('portico-verify-seal-');
const dir = () => folder.path();

/** A certificate authority made for the test, and a seal it issued, as PEM files of the seal and its chain. */
function issued(authorityName: string) {
  const make = (subject: string, issuer: { name: string; key: forge.pki.rsa.PrivateKey } | null) => {
    const keys = forge.pki.rsa.generateKeyPair(2048);
    const certificate = forge.pki.createCertificate();
    certificate.publicKey = keys.publicKey;
    certificate.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(8))}`;
    certificate.validity.notBefore = new Date(Date.now() - 60_000);
    certificate.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600 * 1000);
    certificate.setSubject([{ name: 'commonName', value: subject }]);
    certificate.setIssuer([{ name: 'commonName', value: issuer?.name ?? subject }]);
    certificate.setExtensions(
      issuer === null
        ? [
            { name: 'basicConstraints', cA: true, critical: true },
            { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          ]
        : [{ name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true }],
    );
    certificate.sign(issuer?.key ?? keys.privateKey, forge.md.sha256.create());
    return { certificate, key: keys.privateKey };
  };
  const authority = make(authorityName, null);
  const seal = make('Fund I document seal', { name: authorityName, key: authority.key });
  const der = (certificate: forge.pki.Certificate) =>
    new Uint8Array(
      Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes(), 'binary'),
    );
  return {
    chainPem:
      forge.pki.certificateToPem(seal.certificate) + forge.pki.certificateToPem(authority.certificate),
    keyPem: forge.pki.privateKeyToPem(seal.key),
    authorityDer: der(authority.certificate),
  };
}

describe('checking a sealed PDF offline', () => {
  it('finds a sealed document intact and names its seal, with the time its authority gave when it was timestamped', async () => {
    const credential = await loadSealCredential({ dataDir: join(dir(), 'data') });
    expect(await verifySeal(await sealedDocument(credential))).toEqual({
      ok: true,
      signer: credential.name,
      timestampedAt: null,
      trusted: null,
    });
    const authority = await startTimestampAuthority();
    const workers = createDocumentWorkers({
      seal: credential,
      threads: 1,
      timestampAuthority: authority.url,
    });
    try {
      const before = new Date(Math.floor(Date.now() / 1000) * 1000);
      const stamped = await workers.render(signedJob);
      const check = await verifySeal(stamped, { trusted: [credential.certificates[0] ?? new Uint8Array()] });
      expect(check).toMatchObject({ ok: true, trusted: true });
      expect(check.ok && check.timestampedAt !== null && check.timestampedAt >= before).toBe(true);
    } finally {
      await workers.close();
      await authority.close();
    }
  });

  it('names a byte changed after sealing, bytes added after the seal, and a document never sealed', async () => {
    const credential = await loadSealCredential({ dataDir: join(dir(), 'data') });
    const pdf = await sealedDocument(credential);
    const changed = Buffer.from(pdf);
    const at = changed.indexOf('Producer');
    changed[at] = 'Q'.charCodeAt(0);
    expect(await verifySeal(changed)).toEqual({
      ok: false,
      problem: 'the document changed after it was sealed: what the seal covers has another digest',
    });
    const appended = Buffer.concat([pdf, Buffer.from('\n% an incremental update\n')]);
    expect(await verifySeal(appended)).toEqual({
      ok: false,
      problem: 'the seal does not cover the whole file: 25 bytes were added after it',
    });
    const plain = await PDFDocument.create();
    plain.addPage();
    expect(await verifySeal(await plain.save())).toEqual({
      ok: false,
      problem: 'the document is not sealed: it has no signature',
    });
  });

  it("passes a seal issued by a certificate authority the operator trusts, and fails it against another's", async () => {
    const fund = issued('Fund I issuing CA');
    const sealCert = join(dir(), 'fund-chain.pem');
    const sealKey = join(dir(), 'fund-key.pem');
    await writeFile(sealCert, fund.chainPem);
    await writeFile(sealKey, fund.keyPem);
    const credential = await loadSealCredential({ dataDir: dir(), sealCert, sealKey });
    expect(credential.certificates).toHaveLength(2);
    const pdf = await sealedDocument(credential);
    expect(await verifySeal(pdf, { trusted: [fund.authorityDer] })).toMatchObject({
      ok: true,
      signer: 'Fund I document seal',
      trusted: true,
    });
    expect(await verifySeal(pdf, { trusted: [issued('Someone else CA').authorityDer] })).toEqual({
      ok: false,
      problem: "the seal's certificate does not chain to a certificate you trust",
    });
  });
});
