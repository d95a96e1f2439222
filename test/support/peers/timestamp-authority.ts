import { createHash, createPrivateKey, webcrypto } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { generate } from 'selfsigned';

/**
 * A real RFC 3161 timestamp authority on loopback, for the seals' timestamps: it reads each
 * `application/timestamp-query`, and grants it with a token signed by a certificate of its own (extended key usage
 * timeStamping), or, as `mode` says, refuses it (status 2) or never answers.
 */
export interface TimestampAuthority {
  /** `http://127.0.0.1:<port>/tsa` */
  url: string;
  /** How it answers the next requests. */
  mode: 'grant' | 'refuse' | 'silent';
  /** How many requests it received. */
  requests: number;
  /** Its certificate, DER: a verifier is given it as the authority's. */
  certificate: Uint8Array;
  close(): Promise<void>;
}

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  policy: '1.3.6.1.4.1.55555.1.1',
};

/** Starts a {@link TimestampAuthority} on a free loopback port. */
export async function startTimestampAuthority(): Promise<TimestampAuthority> {
  const pems = await generate([{ name: 'commonName', value: 'Portico test timestamp authority' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
      { name: 'extKeyUsage', timeStamping: true, critical: true },
    ],
  });
  const certificate = pkijs.Certificate.fromBER(
    new Uint8Array(Buffer.from(pems.cert.replace(/-----[^-]+-----|\s/g, ''), 'base64')),
  );
  const key = await webcrypto.subtle.importKey(
    'pkcs8',
    new Uint8Array(createPrivateKey(pems.private).export({ type: 'pkcs8', format: 'der' })),
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['sign'],
  );
  const certificateDer = new Uint8Array(certificate.toSchema().toBER(false));
  let serial = 0;

  async function answer(query: Uint8Array): Promise<Uint8Array> {
    const request = pkijs.TimeStampReq.fromBER(new Uint8Array(query));
    if (authority.mode === 'refuse') {
      return new Uint8Array(
        new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.rejection }) })
          .toSchema()
          .toBER(false),
      );
    }
    serial += 1;
    const info = new pkijs.TSTInfo({
      version: 1,
      policy: OID.policy,
      messageImprint: request.messageImprint,
      serialNumber: new asn1js.Integer({ value: serial }),
      genTime: new Date(),
      ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    });
    const content = new Uint8Array(info.toSchema().toBER(false));
    const essCertIdV2 = new asn1js.Sequence({
      value: [new asn1js.OctetString({ valueHex: createHash('sha256').update(certificateDer).digest() })],
    });
    const signed = new pkijs.SignedData({
      version: 3,
      encapContentInfo: new pkijs.EncapsulatedContentInfo({
        eContentType: OID.tstInfo,
        eContent: new asn1js.OctetString({ valueHex: content }),
      }),
      signerInfos: [
        new pkijs.SignerInfo({
          version: 1,
          sid: new pkijs.IssuerAndSerialNumber({
            issuer: certificate.issuer,
            serialNumber: certificate.serialNumber,
          }),
          signedAttrs: new pkijs.SignedAndUnsignedAttributes({
            type: 0,
            attributes: [
              new pkijs.Attribute({
                type: OID.contentType,
                values: [new asn1js.ObjectIdentifier({ value: OID.tstInfo })],
              }),
              new pkijs.Attribute({
                type: OID.messageDigest,
                values: [new asn1js.OctetString({ valueHex: createHash('sha256').update(content).digest() })],
              }),
              new pkijs.Attribute({
                type: OID.signingCertificateV2,
                values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
              }),
            ],
          }),
        }),
      ],
      certificates: [certificate],
    });
    await signed.sign(key, 0, 'SHA-256');
    const response = new pkijs.TimeStampResp({
      status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
      timeStampToken: new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) }),
    });
    return new Uint8Array(response.toSchema().toBER(false));
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      authority.requests += 1;
      if (authority.mode === 'silent') return;
      answer(new Uint8Array(Buffer.concat(chunks))).then(
        (body) => response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(body),
        () => response.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const authority: TimestampAuthority = {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/tsa`,
    mode: 'grant',
    requests: 0,
    certificate: certificateDer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
  return authority;
}
