import { request } from 'node:https';

export interface HttpsAnswer {
  status: number;
  text: string;
}

/** One POST over HTTPS, trusting only `ca` (the bench's self-signed certificate). */
export function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  ca: string,
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        ca,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
