import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MultipartFile } from '@fastify/multipart';
import { AppError, fileErrors } from '../errors.ts';

/**
 * One file sent as a multipart/form-data body, read through `@fastify/multipart` (registered by the route's
 * scope; it parses with busboy). What the parser cannot read is the client's mistake, never a 500; a file past
 * its limit is refused at the limit, not after the rest of the body.
 */

/** A file as the client sent it: its name (as `checkFilename` keeps it) and its whole content. */
export interface ReceivedFile {
  filename: string;
  content: Buffer;
}

export interface FilePartOptions {
  /** The name of the part that holds the file, e.g. `file`. */
  partName: string;
  /** The largest content taken, in bytes. */
  maxBytes: number;
  /** The refusal of a larger file (a 413). */
  tooLarge: () => AppError;
  /** The file name as kept, or a refusal of it; checked before the content is read. */
  checkFilename: (name: string | undefined) => string;
}

/** UNSUPPORTED_MEDIA_TYPE for a body that is not multipart/form-data. */
const notMultipart = (partName: string) =>
  new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `send the file as multipart/form-data, in a part named "${partName}"`,
  );

/** BAD_USER_INPUT for a body whose file is not in the part the route reads. */
const wrongPart = (partName: string) =>
  new AppError('BAD_USER_INPUT', `send the file in a part named "${partName}"`, { field: partName });

/**
 * The plugin's refusals of a part besides the file (a form field, a second file, a field declared JSON that is
 * not), past the route's limits of one part: its own words ("reach fields limit") say nothing of what to send.
 */
const EXTRA_PART = new Set([
  'FST_PARTS_LIMIT',
  'FST_FILES_LIMIT',
  'FST_FIELDS_LIMIT',
  'FST_INVALID_JSON_FIELD_ERROR',
]);

/**
 * What the client sees of an error raised while the body was parsed or read. Every such error comes from the
 * bytes the client sent: ours are AppErrors; a part besides the file is refused in words that say what to
 * send; the plugin's other refusals carry a 4xx status (a body cut off by a closed connection) that the error
 * handler answers as they are.
 */
function asClientError(
  error: unknown,
  partName: string,
  whatToSend = `send the file alone, in one part named "${partName}": this upload takes no other part or field`,
): unknown {
  if (error instanceof AppError) return error;
  const { statusCode: status, code } = (error ?? {}) as { statusCode?: unknown; code?: unknown };
  if (typeof code === 'string' && EXTRA_PART.has(code)) {
    return new AppError('PAYLOAD_TOO_LARGE', whatToSend, { field: partName }, { cause: error });
  }
  // A part named like a property of every object (`constructor`, `__proto__`): the parser refuses its name.
  if (code === 'FST_PROTO_VIOLATION') return wrongPart(partName);
  if (typeof status === 'number' && status < 500) return error;
  return fileErrors.multipartInvalid(error);
}

/**
 * Ends the connection with the answer instead of reading the rest of the body, which nobody wants: without this
 * a 40 MiB body over a 25 MiB limit was read to its end (5 s) before the 413 went out.
 */
function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  request.raw.unpipe();
  request.raw.pause();
  void reply.header('connection', 'close');
}

/** The content of the file part, refused the moment it passes `maxBytes`. */
async function readContent(
  stream: Readable & { truncated?: boolean },
  options: Pick<FilePartOptions, 'maxBytes' | 'tooLarge'>,
): Promise<Buffer> {
  // At the limit busboy cuts the part short but goes on reading and dropping the body to its end: stop instead.
  const overLimit = () => {
    stream.destroy(options.tooLarge());
  };
  // A part that fits in the first chunks may have passed the limit before anyone listened.
  if (stream.truncated === true) overLimit();
  else stream.once('limit', overLimit);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).byteLength;
      if (size > options.maxBytes) throw options.tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw options.tooLarge();
    throw error;
  } finally {
    stream.off('limit', overLimit);
  }
  if (stream.truncated === true) throw options.tooLarge();
  return Buffer.concat(chunks, size);
}

/**
 * Reads the file part of a multipart/form-data body: UNSUPPORTED_MEDIA_TYPE for a body that is not multipart,
 * BAD_USER_INPUT without the part, the refusal of `checkFilename`, MULTIPART_INVALID for a body the parser
 * cannot read, PAYLOAD_TOO_LARGE for a part besides the file (the route's limits allow one), and `tooLarge()` as soon as the file passes `maxBytes`, after which the rest of the body is not
 * read and the connection closes with the answer.
 *
 * @example
 * const { filename, content } = await receiveFilePart(request, reply, {
 *   partName: 'file',
 *   maxBytes: target.maxBytes,
 *   tooLarge: () => fileTooLarge(target),
 *   checkFilename,
 * });
 */
export async function receiveFilePart(
  request: FastifyRequest,
  reply: FastifyReply,
  options: FilePartOptions,
): Promise<ReceivedFile> {
  const { partName } = options;
  if (!request.isMultipart()) throw notMultipart(partName);
  try {
    const part = await request.file({ limits: { fileSize: options.maxBytes } });
    if (!part) throw wrongPart(partName);
    return await receivePart(part, options);
  } catch (error) {
    const refusal = asClientError(error, partName);
    if (refusal instanceof AppError && refusal.status === 413) closeAfterAnswer(request, reply);
    throw refusal;
  }
}

/**
 * One part read as `options` ask: its name checked (WRONG_PART otherwise), its file name checked, its content read
 * within the limit. A part refused is drained, so that the request's next part, or its end, can be read.
 */
async function receivePart(part: MultipartFile, options: FilePartOptions): Promise<ReceivedFile> {
  if (part.fieldname !== options.partName) {
    part.file.resume();
    throw wrongPart(options.partName);
  }
  let filename: string;
  try {
    filename = options.checkFilename(part.filename);
  } catch (error) {
    part.file.resume();
    throw error;
  }
  return { filename, content: await readContent(part.file, options) };
}

/**
 * Reads a file and the files sent beside it (a template and the fund PDFs it names): the first part must be
 * `file.partName`, each further one `beside.partName`, at most `beside.maxCount` of them, each refused the moment
 * it passes its own limit. Refused as {@link receiveFilePart} refuses, and a part past the count with
 * PAYLOAD_TOO_LARGE.
 */
export async function receiveFileWithOthers(
  request: FastifyRequest,
  reply: FastifyReply,
  file: FilePartOptions,
  beside: FilePartOptions & { maxCount: number },
): Promise<{ file: ReceivedFile; beside: ReceivedFile[] }> {
  if (!request.isMultipart()) throw notMultipart(file.partName);
  const whatToSend = `send the file in a part named "${file.partName}" and at most ${String(beside.maxCount)} more in parts named "${beside.partName}"`;
  let first: ReceivedFile | undefined;
  const others: ReceivedFile[] = [];
  try {
    const largest = Math.max(file.maxBytes, beside.maxBytes);
    for await (const part of request.files({ limits: { fileSize: largest } })) {
      const options = first === undefined ? file : beside;
      if (others.length === beside.maxCount) {
        part.file.resume();
        throw new AppError('PAYLOAD_TOO_LARGE', whatToSend, { field: beside.partName });
      }
      const received = await receivePart(part, options);
      if (first === undefined) first = received;
      else others.push(received);
    }
  } catch (error) {
    const refusal = asClientError(error, file.partName, whatToSend);
    if (refusal instanceof AppError && refusal.status === 413) closeAfterAnswer(request, reply);
    throw refusal;
  }
  if (first === undefined) throw wrongPart(file.partName);
  return { file: first, beside: others };
}
