import { createHash, webcrypto } from 'node:crypto';

/**
 * Checks a sealed PDF as a fund's counsel would, offline and without Portico's database: the seal (pades.ts)
 * covers the whole file, what it covers has the digest it signed, its signature verifies with the certificate it
 * names (signing-certificate-v2), its timestamp (timestamp.ts), when it has one, names its signature and verifies,
 * and, given the certificates the operator trusts, the seal's certificate chains to one of them at the time it was
 * sealed. The first problem is named in words.
 */

/** What a sealed PDF's seal proves. */
export type SealCheck =
  | {
      ok: true;
      /** The seal's name: its certificate's common name. */
      signer: string;
      /** When its timestamp authority says it was sealed, if it was timestamped. */
      timestampedAt: Date | null;
      /** Whether the seal's certificate chains to one the operator trusts; null when none were given. */
      trusted: boolean | null;
    }
  | { ok: false; problem: string };

const OID = {
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  commonName: '2.5.4.3',
} as const;

/**
 * The first OCTET STRING in an ASN.1 value, depth first: in a signing-certificate-v2 attribute, the hash of the
 * first certificate it names (its hash algorithm, SHA-256 by default, holds none).
 */
function firstOctetString(
  value: unknown,
  octetString: abstract new (...args: never[]) => unknown,
): Uint8Array | undefined {
  if (value instanceof octetString) {
    return new Uint8Array((value as { valueBlock: { valueHexView: Uint8Array } }).valueBlock.valueHexView);
  }
  const inner = (value as { valueBlock?: { value?: unknown } } | undefined)?.valueBlock?.value;
  if (!Array.isArray(inner)) return undefined;
  for (const part of inner) {
    const found = firstOctetString(part, octetString);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The byte ranges of each seal of a PDF, in the file's order. */
function byteRanges(text: string): [number, number, number, number][] {
  const ranges: [number, number, number, number][] = [];
  for (const match of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    ranges.push([Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4])]);
  }
  return ranges;
}

/**
 * The check of `pdf`'s seal. `trusted` are the certificates (DER) a seal must chain to: a fund's CA, or the
 * self-signed seal of a demo; without them the chain is not checked (`trusted: null`).
 */
export async function verifySeal(
  pdf: Uint8Array,
  options: { trusted?: readonly Uint8Array[] } = {},
): Promise<SealCheck> {
  const [asn1js, pkijs] = await Promise.all([import('asn1js'), import('pkijs')]);
  const engine = new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as Crypto });
  const text = Buffer.from(pdf).toString('latin1');
  const ranges = byteRanges(text);
  const [range] = ranges;
  if (range === undefined) return { ok: false, problem: 'the document is not sealed: it has no signature' };
  if (ranges.length > 1)
    return {
      ok: false,
      problem: `the document holds ${String(ranges.length)} signatures, where Portico seals once`,
    };
  const [start, firstLength, second, secondLength] = range;
  if (start !== 0 || second + secondLength !== pdf.byteLength) {
    const added = pdf.byteLength - (second + secondLength);
    return {
      ok: false,
      problem:
        added > 0
          ? `the seal does not cover the whole file: ${String(added)} bytes were added after it`
          : 'the seal does not cover the whole file',
    };
  }
  if (text[firstLength] !== '<' || text[second - 1] !== '>') {
    return { ok: false, problem: "the seal's contents are not where its byte range says" };
  }
  const hex = text.slice(firstLength + 1, second - 1);
  const parsed = asn1js.fromBER(new Uint8Array(Buffer.from(hex, 'hex')));
  if (parsed.offset === -1) return { ok: false, problem: "the seal's contents are not a signature (CMS)" };
  let signed: InstanceType<typeof pkijs.SignedData>;
  try {
    signed = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: parsed.result }).content });
  } catch {
    return { ok: false, problem: "the seal's contents are not a signature (CMS)" };
  }
  const covered = Buffer.concat([pdf.subarray(0, firstLength), pdf.subarray(second, second + secondLength)]);
  const signerInfo = signed.signerInfos[0];
  const attributes = signerInfo?.signedAttrs?.attributes ?? [];
  const digest = attributes.find((each) => each.type === OID.messageDigest)?.values[0] as
    InstanceType<typeof asn1js.OctetString> | undefined;
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();
  if (digest === undefined || !Buffer.from(digest.valueBlock.valueHexView).equals(sha256(covered))) {
    return {
      ok: false,
      problem: 'the document changed after it was sealed: what the seal covers has another digest',
    };
  }

  // The timestamp first: the chain is checked at the time it names.
  let timestampedAt: Date | null = null;
  const tokenAttribute = signerInfo?.unsignedAttrs?.attributes.find(
    (each) => each.type === OID.signatureTimeStampToken,
  );
  if (tokenAttribute !== undefined && signerInfo !== undefined) {
    try {
      const token = new pkijs.SignedData({
        schema: new pkijs.ContentInfo({ schema: tokenAttribute.values[0] }).content,
      });
      const content = token.encapContentInfo.eContent?.getValue() ?? new ArrayBuffer(0);
      token.encapContentInfo.eContent = new asn1js.OctetString({ valueHex: content });
      const result = await token.verify(
        {
          signer: 0,
          checkChain: false,
          extendedMode: true,
          data: new Uint8Array(signerInfo.signature.valueBlock.valueHexView).slice().buffer,
        },
        engine,
      );
      if (result.signatureVerified !== true) throw new Error('not verified');
      timestampedAt = pkijs.TSTInfo.fromBER(content).genTime;
    } catch {
      return {
        ok: false,
        problem: "the seal's timestamp does not verify, or is not of this seal's signature",
      };
    }
  }

  let result: Awaited<ReturnType<typeof signed.verify>>;
  try {
    result = await signed.verify(
      { signer: 0, data: new Uint8Array(covered).buffer, extendedMode: true, checkChain: false },
      engine,
    );
  } catch (error) {
    return {
      ok: false,
      problem:
        (error as { code?: number }).code === 3
          ? 'the seal does not hold the certificate it was made with'
          : 'the seal does not verify: its signature is not of what it covers by its certificate',
    };
  }
  if (result.signatureVerified !== true) {
    return {
      ok: false,
      problem: 'the seal does not verify: its signature is not of what it covers by its certificate',
    };
  }
  const signer = result.signerCertificate ?? undefined;
  if (signer === undefined)
    return { ok: false, problem: 'the seal does not hold the certificate it was made with' };
  const certHash = firstOctetString(
    attributes.find((each) => each.type === OID.signingCertificateV2)?.values[0],
    asn1js.OctetString,
  );
  const signerDer = new Uint8Array(signer.toSchema().toBER(false));
  if (certHash === undefined || !Buffer.from(certHash).equals(sha256(signerDer))) {
    return {
      ok: false,
      problem: 'the seal does not name its certificate (signing-certificate-v2), as PAdES asks',
    };
  }
  // The chain, at the time the seal was made: its timestamp's, else now.
  let trusted: boolean | null = null;
  // A certificate trusted as itself (a self-signed seal, pinned) needs no chain.
  const pinned = options.trusted?.some((der) => Buffer.from(der).equals(signerDer)) ?? false;
  if (pinned) trusted = true;
  else if (options.trusted !== undefined) {
    const chain = new pkijs.CertificateChainValidationEngine({
      trustedCerts: options.trusted.map((der) => pkijs.Certificate.fromBER(new Uint8Array(der))),
      certs: (signed.certificates ?? []).filter((each) => each instanceof pkijs.Certificate),
      checkDate: timestampedAt ?? new Date(),
    });
    const verdict = await chain.verify({}, engine).catch(() => ({ result: false }));
    if (!verdict.result) {
      return { ok: false, problem: "the seal's certificate does not chain to a certificate you trust" };
    }
    trusted = true;
  }
  const commonName = signer.subject.typesAndValues.find((each) => each.type === OID.commonName);
  return {
    ok: true,
    signer: commonName === undefined ? 'unnamed' : commonName.value.valueBlock.value,
    timestampedAt,
    trusted,
  };
}
