import { createHash, webcrypto } from 'node:crypto';
import type { PDFDocument } from 'pdf-lib';
import type { SealCredential } from './seal-credential.ts';

/**
 * Seals a PDF as a PAdES baseline B signature (ETSI EN 319 142-1): a CMS SignedData (`ETSI.CAdES.detached`) over
 * the whole file but its own placeholder, signed by the deployment's seal (seal-credential.ts) and naming its
 * certificate in the signed attribute signing-certificate-v2, so that a reader can prove the document unchanged
 * since and by whom it was sealed (`pdfsig`, Adobe Reader). The placeholder is added by @signpdf, the CMS made
 * with pkijs; it runs in a document worker, with the document being made.
 */

/**
 * Room for the CMS in the file, in hex digits (two a byte: 16 KiB): the certificates of a chain of three RSA-4096
 * certificates, and the timestamp token with its own certificates that timestamp.ts adds to it afterwards.
 */
const SIGNATURE_HEX_DIGITS = 32_768;

/** Object identifiers of the CMS this makes. */
const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
} as const;

/** How the seal's key signs, as WebCrypto names it. */
function algorithmOf(credential: SealCredential): RsaHashedImportParams | EcKeyImportParams {
  return credential.key.type === 'RSA'
    ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
    : { name: 'ECDSA', namedCurve: credential.key.namedCurve };
}

/** The detached CMS SignedData of `content` by the seal: the bytes the PDF's /Contents holds. */
export async function cadesSignature(content: Uint8Array, credential: SealCredential): Promise<Uint8Array> {
  const [asn1js, pkijs] = await Promise.all([import('asn1js'), import('pkijs')]);
  const engine = new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as Crypto });
  const [signerDer, ...chainDer] = credential.certificates;
  if (signerDer === undefined) throw new Error('a seal without its certificate');
  const signer = pkijs.Certificate.fromBER(new Uint8Array(signerDer));
  const key = await webcrypto.subtle.importKey(
    'pkcs8',
    new Uint8Array(credential.keyPkcs8),
    algorithmOf(credential),
    false,
    ['sign'],
  );
  const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
  // ESSCertIDv2 with SHA-256, its default algorithm, left out as DER requires.
  const signingCertificateV2 = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({
        value: [new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: sha256(signerDer) })] })],
      }),
    ],
  });
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({
              type: OID.contentType,
              values: [new asn1js.ObjectIdentifier({ value: OID.data })],
            }),
            new pkijs.Attribute({
              type: OID.messageDigest,
              values: [new asn1js.OctetString({ valueHex: sha256(content) })],
            }),
            new pkijs.Attribute({ type: OID.signingCertificateV2, values: [signingCertificateV2] }),
          ],
        }),
      }),
    ],
    certificates: [signer, ...chainDer.map((der) => pkijs.Certificate.fromBER(new Uint8Array(der)))],
  });
  await signedData.sign(key, 0, 'SHA-256', undefined, engine);
  const contentInfo = new pkijs.ContentInfo({
    contentType: OID.signedData,
    content: signedData.toSchema(true),
  });
  return new Uint8Array(contentInfo.toSchema().toBER(false));
}

/**
 * The document saved and sealed: its signature field added (invisible: the signatures people made are printed on
 * its pages), the file written without object streams (the signature's dictionary must be found in the file as
 * written), then its bytes but the placeholder signed.
 */
export async function sealPdf(
  pdf: PDFDocument,
  credential: SealCredential,
  facts: { reason: string; signingTime: Date },
): Promise<Uint8Array> {
  const [{ pdflibAddPlaceholder }, utils, signpdfModule] = await Promise.all([
    import('@signpdf/placeholder-pdf-lib'),
    import('@signpdf/utils'),
    import('@signpdf/signpdf'),
  ]);
  pdflibAddPlaceholder({
    pdfDoc: pdf,
    reason: facts.reason,
    contactInfo: '',
    name: credential.name,
    location: '',
    signingTime: facts.signingTime,
    signatureLength: SIGNATURE_HEX_DIGITS,
    subFilter: utils.SUBFILTER_ETSI_CADES_DETACHED,
    appName: 'Portico',
  });
  const unsigned = Buffer.from(await pdf.save({ useObjectStreams: false }));
  class SealSigner extends utils.Signer {
    override async sign(content: Buffer): Promise<Buffer> {
      return Buffer.from(await cadesSignature(content, credential));
    }
  }
  return new Uint8Array(await new signpdfModule.SignPdf().sign(unsigned, new SealSigner()));
}
