/**
 * The frame of one record in a checkpoint journal: one line, `<length> <crc32> <payload>\n`, the
 * length and checksum as 8 hex digits each, counting and covering the payload's UTF-8 bytes. JSON
 * payloads hold no raw newline, so every record is one line and a reader can resynchronize at the next
 * newline after a damaged one. A line is a record only when its length, checksum and newline are all
 * there, so a write cut short (a crash, a power cut) leaves a line that is never mistaken for one.
 */

const HEADER = 18;
const NEWLINE = 0x0a;

const TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32 (IEEE), as zlib and gzip compute it; written here because zlib.crc32 is not in every Node 20. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = -1;
  for (let i = start; i < end; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

const hex8 = (value: number) => value.toString(16).padStart(8, "0");

/** One record as a line of bytes. The payload must not contain a newline (JSON text never does). */
export function encodeFrame(payload: string): Buffer {
  const body = Buffer.from(payload, "utf8");
  const frame = Buffer.allocUnsafe(HEADER + body.length + 1);
  frame.write(`${hex8(body.length)} ${hex8(crc32(body))} `, 0, "latin1");
  body.copy(frame, HEADER);
  frame[frame.length - 1] = NEWLINE;
  return frame;
}

export interface DecodedFrames {
  /** The payloads of the well-formed lines, in order, with the byte offset just after each. */
  records: Array<{ payload: string; end: number }>;
  /** Lines that are not well-formed frames, before the last well-formed one: damage, not a cut. */
  damaged: number;
  /** Where the last well-formed line ends: the bytes after it are a write cut short (or nothing). */
  end: number;
}

/** The frames of `bytes` from `start`: well-formed lines are records, others are skipped and counted. */
export function decodeFrames(bytes: Uint8Array, start = 0): DecodedFrames {
  const records: DecodedFrames["records"] = [];
  let damaged = 0;
  let pendingDamage = 0;
  let end = start;
  let at = start;
  while (at < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, at);
    if (newline < 0) break;
    const payload = frameAt(bytes, at, newline);
    if (payload === undefined) pendingDamage++;
    else {
      records.push({ payload, end: newline + 1 });
      damaged += pendingDamage;
      pendingDamage = 0;
      end = newline + 1;
    }
    at = newline + 1;
  }
  return { records, damaged, end };
}

/** The payload of the line `[start, newline)` when it is a whole frame, else undefined. */
function frameAt(bytes: Uint8Array, start: number, newline: number): string | undefined {
  if (newline - start < HEADER || bytes[start + 8] !== 0x20 || bytes[start + 17] !== 0x20) return undefined;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + start, HEADER).toString("latin1");
  if (!/^[0-9a-f]{8} [0-9a-f]{8} $/.test(text)) return undefined;
  const length = Number.parseInt(text.slice(0, 8), 16);
  if (start + HEADER + length !== newline) return undefined;
  if (crc32(bytes, start + HEADER, newline) !== Number.parseInt(text.slice(9, 17), 16)) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset + start + HEADER, length).toString("utf8");
}
