import { inflateSync } from 'node:zlib';

/**
 * The text a PDF that Portico made draws, line by line: each Flate stream is inflated and its `<hex> Tj`
 * operators (how pdf-lib writes text in the standard fonts, WinAnsi) decoded. Enough for our own PDFs, not a
 * general PDF reader.
 */
export function pdfText(pdf: Uint8Array): string {
  const raw = Buffer.from(pdf);
  const lines: string[] = [];
  let at = 0;
  for (;;) {
    const start = raw.indexOf('stream', at, 'latin1');
    if (start < 0) break;
    const bodyStart = raw[start + 6] === 0x0d ? start + 8 : start + 7;
    const end = raw.indexOf('endstream', bodyStart, 'latin1');
    if (end < 0) break;
    at = end + 9;
    let content: string;
    try {
      content = inflateSync(raw.subarray(bodyStart, end)).toString('latin1');
    } catch {
      // Not a Flate stream (or not a stream at all: "endstream" also contains "stream").
      continue;
    }
    for (const match of content.matchAll(/<([0-9A-Fa-f]*)> Tj/g)) {
      lines.push(Buffer.from(match[1] ?? '', 'hex').toString('latin1'));
    }
  }
  return lines.join('\n');
}
