/**
 * The export's CSV from PostgreSQL's COPY ends lines with LF; the download
 * ends them with CRLF (RFC 4180) and keeps a line break typed inside a
 * quoted field as it was. COPY's bytes arrive in chunks cut anywhere: inside
 * a quoted field, between the two quotes of an escaped one, in the middle of
 * a multi-byte character. Whatever the cut, the file is the same.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { crlfLineEnds } from '../../server/domain/listing/crlf';

async function throughCrlf(chunks: Buffer[]): Promise<string> {
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(chunks).pipe(crlfLineEnds())) out.push(chunk as Buffer);
  return Buffer.concat(out).toString('utf8');
}

const COPY = 'id,name,note\npay_1,João,"line one\nline two"\npay_2,"Say ""hi""\n",plain\npay_3,Conceição,\n';
const EXPECTED = 'id,name,note\r\npay_1,João,"line one\nline two"\r\npay_2,"Say ""hi""\n",plain\r\npay_3,Conceição,\r\n';

describe('the CSV export\'s line ends', () => {
  it('ends every row with CRLF and leaves line breaks inside quoted fields alone', async () => {
    expect(await throughCrlf([Buffer.from(COPY)])).toBe(EXPECTED);
  });

  it('gives the same file wherever COPY\'s bytes are cut into chunks', async () => {
    const bytes = Buffer.from(COPY);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await throughCrlf([bytes.subarray(0, cut), bytes.subarray(cut)]), `cut at byte ${cut}`).toBe(EXPECTED);
    }
    expect(await throughCrlf([...bytes].map((byte) => Buffer.from([byte])))).toBe(EXPECTED);
  });
});
