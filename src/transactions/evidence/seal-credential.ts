import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Forge from 'node-forge';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../../config.ts';

/**
 * The certificate and key that seal completed documents (pades.ts), as a document worker receives them: plain
 * bytes that cross to a thread by structured clone. Read once at start from PORTICO_SEAL_CERT/PORTICO_SEAL_KEY
 * (PEM) or PORTICO_SEAL_P12 (PKCS#12), else from a self-signed certificate made once into the data dir, and an
 * organization's own from PORTICO_SEAL_DIR (seal-keeper.ts); each is checked then, so that a certificate that
 * cannot seal stops the start with one line rather than a completion.
 */
export interface SealCredential {
  /** The private key, PKCS#8 DER. */
  keyPkcs8: Uint8Array;
  /** How the key signs. */
  key: { type: 'RSA' } | { type: 'EC'; namedCurve: 'P-256' | 'P-384' | 'P-521' };
  /** The signer's certificate first, then the rest of its chain, each DER. */
  certificates: Uint8Array[];
  /** The signer's name as a PDF reader shows it (the certificate's common name, else its subject). */
  name: string;
  /** Where it came from, for the start's log line. */
  source: string;
  /** Whether Portico made it itself (self-signed, for the embedded demo and development). */
  selfSigned: boolean;
}

const SELF_SIGNED_CERT = 'seal/seal-cert.pem';
const SELF_SIGNED_KEY = 'seal/seal-key.pem';

/** Key usage bits (RFC 5280 4.2.1.3) that let a certificate sign a document: digitalSignature, nonRepudiation. */
const SIGNING_USAGE = ['digitalSignature', 'nonRepudiation'] as const;

/** The credential's names for the curves Node names in `asymmetricKeyDetails.namedCurve`. */
const CURVES: Record<string, 'P-256' | 'P-384' | 'P-521'> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
};

/** Each certificate of a PEM file, in order. */
function pemCertificates(pem: string, what: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0)
    throw new ConfigError(`${what} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new ConfigError(`${what} holds a certificate that cannot be read`);
    }
  });
}

/** The key usage bits a certificate allows, or undefined when it does not restrict them. */
async function keyUsageOf(certificate: X509Certificate): Promise<string[] | undefined> {
  // Node reads extended key usage but not the key usage bits: pkijs reads the extension.
  const pkijs = await import('pkijs');
  const parsed = pkijs.Certificate.fromBER(new Uint8Array(certificate.raw));
  const extension = parsed.extensions?.find((each) => each.extnID === '2.5.29.15');
  if (extension === undefined) return undefined;
  const bits = new Uint8Array(
    (extension.parsedValue as { valueBlock: { valueHexView: Uint8Array } }).valueBlock.valueHexView,
  );
  const names = [
    'digitalSignature',
    'nonRepudiation',
    'keyEncipherment',
    'dataEncipherment',
    'keyAgreement',
    'keyCertSign',
    'cRLSign',
    'encipherOnly',
  ];
  return names.filter((_, index) => ((bits[0] ?? 0) & (0x80 >> index)) !== 0);
}

/** The subject's common name, else the whole subject. */
function nameOf(certificate: X509Certificate): string {
  const common = /(?:^|\n)CN=([^\n]+)/.exec(certificate.subject)?.[1];
  return common ?? certificate.subject.replace(/\n/g, ', ');
}

/**
 * A credential of a key and the certificates given with it, checked: the certificate that matches the key is the
 * signer (the others its chain); it is valid now, its key usage lets it sign, and its key is RSA or EC. Each
 * problem is a ConfigError of one line naming `what`.
 */
export async function checkedCredential(
  key: KeyObject,
  certificates: X509Certificate[],
  facts: { what: string; source: string; selfSigned: boolean; now?: Date },
): Promise<SealCredential> {
  const { what } = facts;
  const signer = certificates.find((certificate) => certificate.checkPrivateKey(key));
  if (signer === undefined) {
    const named = certificates.map((each) => `"${nameOf(each)}"`).join(', ');
    throw new ConfigError(`${what}: the private key does not match the certificate (${named})`);
  }
  const now = facts.now ?? new Date();
  if (new Date(signer.validTo).getTime() <= now.getTime()) {
    throw new ConfigError(
      `${what}: the certificate "${nameOf(signer)}" expired on ${new Date(signer.validTo).toISOString()}: renew it`,
    );
  }
  if (new Date(signer.validFrom).getTime() > now.getTime()) {
    throw new ConfigError(
      `${what}: the certificate "${nameOf(signer)}" is not valid before ${new Date(signer.validFrom).toISOString()}`,
    );
  }
  const usage = await keyUsageOf(signer);
  if (usage !== undefined && !SIGNING_USAGE.some((bit) => usage.includes(bit))) {
    throw new ConfigError(
      `${what}: the certificate "${nameOf(signer)}" cannot sign documents: its key usage allows ${usage.join(', ') || 'nothing'}, not digitalSignature or nonRepudiation`,
    );
  }
  let type: SealCredential['key'];
  if (key.asymmetricKeyType === 'rsa') type = { type: 'RSA' };
  else if (
    key.asymmetricKeyType === 'ec' &&
    CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''] !== undefined
  ) {
    type = { type: 'EC', namedCurve: CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''] ?? 'P-256' };
  } else {
    throw new ConfigError(
      `${what}: the key is ${key.asymmetricKeyType ?? 'of an unknown type'}: seals need an RSA key, or an EC key on P-256, P-384 or P-521`,
    );
  }
  return {
    keyPkcs8: new Uint8Array(key.export({ type: 'pkcs8', format: 'der' })),
    key: type,
    certificates: [signer, ...certificates.filter((each) => each !== signer)].map(
      (each) => new Uint8Array(each.raw),
    ),
    name: nameOf(signer),
    source: facts.source,
    selfSigned: facts.selfSigned,
  };
}

/**
 * A credential from PEM files: the certificate (with its chain) and its unencrypted private key. Each problem is a
 * ConfigError of one line starting with `what` (the variables, or the file of a seal folder's).
 */
export async function readPemCredential(
  certPath: string,
  keyPath: string,
  facts: { what: string; selfSigned: boolean },
): Promise<SealCredential> {
  const { what, selfSigned } = facts;
  const [certPem, keyPem] = await Promise.all([
    readConfigFile(certPath, what),
    readConfigFile(keyPath, what),
  ]);
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem.toString('utf8'));
  } catch {
    throw new ConfigError(`${what}: ${keyPath} holds no private key that can be read (PEM, unencrypted)`);
  }
  return checkedCredential(key, pemCertificates(certPem.toString('utf8'), certPath), {
    what,
    source: certPath,
    selfSigned,
  });
}

/**
 * A credential from a PKCS#12 file and its password; `passwordFrom` names where the password came from (a
 * variable, or a file). Each problem is a ConfigError of one line starting with `what`.
 */
export async function readP12Credential(
  path: string,
  password: string,
  facts: { what: string; passwordFrom: string },
): Promise<SealCredential> {
  const { what } = facts;
  const bytes = await readConfigFile(path, what);
  const { default: forge } = await import('node-forge');
  let p12: ReturnType<typeof forge.pkcs12.pkcs12FromAsn1>;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(
      forge.asn1.fromDer(forge.util.createBuffer(bytes.toString('binary'))),
      password,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    throw new ConfigError(
      /password|MAC/i.test(message)
        ? `${what}: the password (${facts.passwordFrom}) does not open ${path}`
        : `${what}: ${path} is not a PKCS#12 file that can be read`,
    );
  }
  const der = (asn1: Forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
  const bagsOf = (type: string): Forge.pkcs12.Bag[] => p12.getBags({ bagType: type })[type] ?? [];
  const keyBags = [
    ...bagsOf(forge.pki.oids.pkcs8ShroudedKeyBag ?? ''),
    ...bagsOf(forge.pki.oids.keyBag ?? ''),
  ];
  const [bag] = keyBags;
  if (bag === undefined) throw new ConfigError(`${what}: ${path} holds no private key`);
  // forge reads RSA keys; another kind (EC) comes as its PKCS#8 structure, which Node reads.
  const keyDer = bag.key
    ? der(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)))
    : der(bag.asn1);
  const key = createPrivateKey({ key: keyDer, format: 'der', type: 'pkcs8' });
  const certificates = bagsOf(forge.pki.oids.certBag ?? '').map(
    (each) => new X509Certificate(each.cert ? der(forge.pki.certificateToAsn1(each.cert)) : der(each.asn1)),
  );
  if (certificates.length === 0) throw new ConfigError(`${what}: ${path} holds no certificate`);
  return checkedCredential(key, certificates, { what, source: path, selfSigned: false });
}

/** A file of the configuration, or a ConfigError of one line naming it. */
export async function readConfigFile(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new ConfigError(
      `${what}: ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/**
 * The credential that seals this deployment's completed documents: PORTICO_SEAL_P12, or PORTICO_SEAL_CERT and
 * PORTICO_SEAL_KEY, else a self-signed certificate for "Portico (<data dir>)" made once into the data dir and
 * reused (EC P-256, five years). A PDF reader shows a self-signed seal as made by an unknown issuer: the document
 * is still proved unchanged since, but not who sealed it.
 */
export async function loadSealCredential(
  config: Pick<Config, 'sealCert' | 'sealKey' | 'sealP12' | 'sealP12Password' | 'dataDir'>,
  logger?: Logger,
): Promise<SealCredential> {
  const seal = await readSealCredential(config);
  logger?.info(
    { seal: seal.name, source: seal.source, selfSigned: seal.selfSigned },
    seal.selfSigned
      ? 'sealing signed documents with a self-signed certificate made for this data dir: a PDF reader proves them unchanged, not who sealed them; set PORTICO_SEAL_P12 (or PORTICO_SEAL_CERT and PORTICO_SEAL_KEY) to seal with the organization’s own'
      : 'sealing signed documents',
  );
  return seal;
}

/** The credential of {@link loadSealCredential}, read, checked, or made. */
async function readSealCredential(
  config: Pick<Config, 'sealCert' | 'sealKey' | 'sealP12' | 'sealP12Password' | 'dataDir'>,
): Promise<SealCredential> {
  if (config.sealP12 !== undefined) {
    return readP12Credential(config.sealP12, config.sealP12Password ?? '', {
      what: 'PORTICO_SEAL_P12',
      passwordFrom: 'PORTICO_SEAL_P12_PASSWORD',
    });
  }
  if (config.sealCert !== undefined && config.sealKey !== undefined) {
    return readPemCredential(config.sealCert, config.sealKey, {
      what: 'PORTICO_SEAL_CERT/PORTICO_SEAL_KEY',
      selfSigned: false,
    });
  }
  const certPath = join(config.dataDir, SELF_SIGNED_CERT);
  const keyPath = join(config.dataDir, SELF_SIGNED_KEY);
  try {
    return await readPemCredential(certPath, keyPath, { what: certPath, selfSigned: true });
  } catch (error) {
    // Made on the first start; an expired one is made again.
    if (!(error instanceof ConfigError) || !/cannot be read|expired/.test(error.message)) throw error;
  }
  // Loaded only to make a certificate, once per data dir.
  const { generate } = await import('selfsigned');
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: `Portico document seal (${config.dataDir})` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 5 * 365 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    ],
  });
  await mkdir(join(config.dataDir, 'seal'), { recursive: true, mode: 0o700 });
  await writeFile(keyPath, pems.private, { mode: 0o600 });
  await writeFile(certPath, pems.cert, { mode: 0o644 });
  return readPemCredential(certPath, keyPath, { what: certPath, selfSigned: true });
}
