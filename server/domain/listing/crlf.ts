/**
 * PostgreSQL's COPY ends CSV lines with LF; the export's CSV (RFC 4180, as
 * listing/csv.ts writes it) ends them with CRLF. This stream makes each line
 * end CRLF and leaves line breaks inside a quoted field as they are (merchant
 * text may hold them, and csvCell keeps them as typed). It works on bytes,
 * a chunk at a time, with no string per row: a quote and a line feed are
 * single bytes in UTF-8 that no multi-byte character contains, and whether a
 * byte is inside quotes carries over from one chunk to the next (a doubled
 * quote inside a field leaves and re-enters the quotes, which is the same).
 */
import { Transform } from 'node:stream';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

export function crlfLineEnds(): Transform {
  let quoted = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      // The line feeds outside quotes, found by indexOf (native) rather than a loop over every byte in JavaScript.
      const ends: number[] = [];
      let nextQuote = chunk.indexOf(QUOTE);
      let at = 0;
      while (at < chunk.length) {
        if (quoted) {
          if (nextQuote < 0) break;
          quoted = false;
          at = nextQuote + 1;
          nextQuote = chunk.indexOf(QUOTE, at);
          continue;
        }
        const lineEnd = chunk.indexOf(LF, at);
        if (lineEnd >= 0 && (nextQuote < 0 || lineEnd < nextQuote)) {
          ends.push(lineEnd);
          at = lineEnd + 1;
        } else if (nextQuote >= 0) {
          quoted = true;
          at = nextQuote + 1;
          nextQuote = chunk.indexOf(QUOTE, at);
        } else break;
      }
      if (!ends.length) return done(null, chunk);
      const out = Buffer.allocUnsafe(chunk.length + ends.length);
      let from = 0;
      let to = 0;
      for (const end of ends) {
        to += chunk.copy(out, to, from, end);
        out[to++] = CR;
        out[to++] = LF;
        from = end + 1;
      }
      chunk.copy(out, to, from);
      done(null, out);
    },
  });
}
