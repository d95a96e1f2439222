import { createHash, randomBytes, webcrypto } from 'node:crypto';

/**
 * An RFC 3161 timestamp of a seal's signature, from the timestamp authority of PORTICO_TSA_URL: the authority
 * signs the signature's SHA-256 with the time, so that the seal is proved made by then (PAdES baseline T) whatever
 * the seal's own clock said. Asked for over HTTP(S) as `application/timestamp-query` on the main thread (the
 * document workers only compute), once the worker has sealed the document; the answer is checked (granted, our
 * hash, our nonce, its signature) and its token added to the seal's CMS as the unsigned attribute
 * signature-time-stamp, in the room the seal left for it: the bytes the seal covers do not change.
 */

/** How long the authority has to answer before the seal goes without its timestamp. */
export const TIMESTAMP_TIMEOUT_MS = 5000;

/** id-ct-TSTInfo and the SHA-256 algorithm's identifiers. */
const TST_INFO = '1.2.840.113549.1.9.16.1.4';
const SHA256 = '2.16.840.1.101.3.4.2.1';

/** A timestamp that could not be had, with why in words. */
export class TimestampError extends Error {
  override name = 'TimestampError';
}

/**
 * The timestamp token (a CMS ContentInfo, DER) of `signature` from the authority at `url`; a TimestampError
 * saying why when it does not answer in time, refuses, or answers for another hash or request.
 */
export async function timestampToken(url: string, signature: Uint8Array): Promise<Uint8Array> {
  const [asn1js, pkijs] = await Promise.all([import('asn1js'), import('pkijs')]);
  const hashed = new Uint8Array(createHash('sha256').update(signature).digest());
  const nonce = randomBytes(8);
  nonce[0] = (nonce[0] ?? 0) & 0x7f;
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: hashed }),
    }),
    nonce: new asn1js.Integer({ valueHex: new Uint8Array(nonce) }),
    certReq: true,
  });
  let answer: Response;
  try {
    answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query' },
      body: new Uint8Array(request.toSchema().toBER(false)),
      signal: AbortSignal.timeout(TIMESTAMP_TIMEOUT_MS),
    });
  } catch (error) {
    throw new TimestampError(
      `the timestamp authority did not answer within ${String(TIMESTAMP_TIMEOUT_MS / 1000)} s (${(error as Error).name})`,
    );
  }
  if (!answer.ok) throw new TimestampError(`the timestamp authority answered HTTP ${String(answer.status)}`);
  let response: InstanceType<typeof pkijs.TimeStampResp>;
  try {
    response = pkijs.TimeStampResp.fromBER(new Uint8Array(await answer.arrayBuffer()));
  } catch {
    throw new TimestampError('the timestamp authority answered something that is not a timestamp response');
  }
  const { status } = response.status;
  const granted = [pkijs.PKIStatus.granted, pkijs.PKIStatus.grantedWithMods];
  if (!granted.includes(status) || response.timeStampToken === undefined) {
    throw new TimestampError(`the timestamp authority refused the request (status ${String(status)})`);
  }
  const token = response.timeStampToken;
  const signed = new pkijs.SignedData({ schema: token.content });
  const content = signed.encapContentInfo;
  if (content.eContentType !== TST_INFO || content.eContent === undefined) {
    throw new TimestampError('the timestamp authority answered a token without a timestamp in it');
  }
  const info = pkijs.TSTInfo.fromBER(content.eContent.getValue());
  const imprint = new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView);
  const sameNonce = info.nonce !== undefined && Buffer.from(info.nonce.valueBlock.valueHexView).equals(nonce);
  if (!Buffer.from(imprint).equals(Buffer.from(hashed)) || !sameNonce) {
    throw new TimestampError('the timestamp authority answered for another request');
  }
  // pkijs reads the timestamp from the content's bytes as one block: given them as such.
  signed.encapContentInfo.eContent = new asn1js.OctetString({ valueHex: content.eContent.getValue() });
  const verified = await signed
    .verify(
      // The signature timestamped, whose hash the token must name.
      { signer: 0, checkChain: false, extendedMode: true, data: new Uint8Array(signature).buffer },
      new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as Crypto }),
    )
    .then(
      (result) => result.signatureVerified === true,
      () => false,
    );
  if (!verified) throw new TimestampError("the timestamp authority's token does not verify");
  return new Uint8Array(token.toSchema().toBER(false));
}

/** id-aa-signatureTimeStampToken (RFC 3161 appendix A). */
const SIGNATURE_TIME_STAMP_TOKEN = '1.2.840.113549.1.9.16.2.14';

/** Where a sealed PDF's CMS sits: the hex digits between the `<` and `>` of its /Contents. */
function contentsOf(pdf: Uint8Array): { start: number; end: number } {
  const text = Buffer.from(pdf).toString('latin1');
  const byteRange = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text);
  if (byteRange === null) throw new TimestampError('the document has no seal to timestamp');
  // The gap between the two signed ranges is `<hex>`.
  const start = Number(byteRange[2]) + 1;
  const end = Number(byteRange[3]) - 1;
  if (text[start - 1] !== '<' || text[end] !== '>')
    throw new TimestampError("the seal's contents are not where its byte range says");
  return { start, end };
}

/**
 * The sealed PDF with its seal timestamped by the authority at `url`: the seal's CMS read from /Contents, the
 * token of its signature added, written back in place (the rest of the placeholder zeros). A TimestampError says
 * why it could not be, and the PDF stays as it was sealed.
 */
export async function timestampSealedPdf(pdf: Uint8Array, url: string): Promise<Uint8Array> {
  const [asn1js, pkijs] = await Promise.all([import('asn1js'), import('pkijs')]);
  const { start, end } = contentsOf(pdf);
  const hex = Buffer.from(pdf.subarray(start, end)).toString('latin1');
  const parsed = asn1js.fromBER(new Uint8Array(Buffer.from(hex, 'hex')));
  if (parsed.offset === -1) throw new TimestampError("the seal's contents are not a CMS");
  const contentInfo = new pkijs.ContentInfo({ schema: parsed.result });
  const signed = new pkijs.SignedData({ schema: contentInfo.content });
  const [signer] = signed.signerInfos;
  if (signer === undefined) throw new TimestampError('the seal has no signer');
  const token = await timestampToken(url, new Uint8Array(signer.signature.valueBlock.valueHexView));
  signer.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 1,
    attributes: [
      new pkijs.Attribute({ type: SIGNATURE_TIME_STAMP_TOKEN, values: [asn1js.fromBER(token).result] }),
    ],
  });
  const cms = new pkijs.ContentInfo({ contentType: contentInfo.contentType, content: signed.toSchema(true) });
  const written = Buffer.from(cms.toSchema().toBER(false)).toString('hex');
  if (written.length > end - start) {
    throw new TimestampError(
      `the timestamp does not fit in the room the seal left for it (${String(written.length / 2)} bytes)`,
    );
  }
  const out = Buffer.from(pdf);
  out.write(written.padEnd(end - start, '0'), start, 'latin1');
  return new Uint8Array(out);
}
