/**
 * The Authenticode signature of a PE executable (Windows), and taking it out. Node's Windows binary is
 * signed by its publisher; injecting the single-executable blob changes the signed bytes, so the
 * signature left in the file no longer matches and Windows reports the executable as tampered with
 * rather than unsigned. The release takes the signature out before the injection: the security entry of
 * the data directories zeroed, the certificate table (always the end of the file) cut off, and the
 * header's checksum made right again (the PE/COFF specification, "The Attribute Certificate Table").
 */

const SECURITY_DIRECTORY = 4;

interface PeHeader {
  /** File offset of the optional header's CheckSum field. */
  checksumAt: number;
  /** File offset of the security entry of the data directories (8 bytes: file offset, size). */
  securityAt: number;
}

function header(file: Buffer): PeHeader {
  if (file.length < 0x40 || file.toString("latin1", 0, 2) !== "MZ") throw new Error("not a PE executable (no MZ header)");
  const pe = file.readUInt32LE(0x3c);
  if (pe + 24 > file.length || file.toString("latin1", pe, pe + 4) !== "PE\0\0") throw new Error("not a PE executable (no PE signature)");
  const optional = pe + 24;
  const magic = file.readUInt16LE(optional);
  // The data directories start after the fields whose size differs between PE32 (0x10b) and PE32+ (0x20b).
  const directories = magic === 0x20b ? optional + 112 : magic === 0x10b ? optional + 96 : -1;
  if (directories < 0) throw new Error(`unknown optional header magic 0x${magic.toString(16)}`);
  const count = file.readUInt32LE(directories - 4);
  if (count <= SECURITY_DIRECTORY) throw new Error("the PE file has no security data directory entry");
  return { checksumAt: optional + 64, securityAt: directories + 8 * SECURITY_DIRECTORY };
}

/** Where the certificate table is, or undefined when the file carries no signature. */
export function authenticode(file: Buffer): { offset: number; size: number } | undefined {
  const { securityAt } = header(file);
  const offset = file.readUInt32LE(securityAt);
  const size = file.readUInt32LE(securityAt + 4);
  return offset === 0 && size === 0 ? undefined : { offset, size };
}

/** The PE checksum of `file` (the algorithm of imagehlp's CheckSumMappedFile), its own field counted as 0. */
export function peChecksum(file: Buffer): number {
  const { checksumAt } = header(file);
  let sum = 0;
  for (let i = 0; i < file.length; i += 2) {
    if (i === checksumAt || i === checksumAt + 2) continue;
    const word = i + 1 < file.length ? file.readUInt16LE(i) : file[i];
    sum += word;
    sum = (sum & 0xffff) + (sum >>> 16);
  }
  sum = (sum & 0xffff) + (sum >>> 16);
  return (sum + file.length) >>> 0;
}

/** `file` with its checksum field set to what it should be. */
export function withChecksum(file: Buffer): Buffer {
  const out = Buffer.from(file);
  out.writeUInt32LE(peChecksum(out), header(out).checksumAt);
  return out;
}

/**
 * `file` without its Authenticode signature, as an unsigned build of it would be: nothing else changes but
 * the checksum. A signature that is not the end of the file is refused (something was appended after
 * signing, and cutting there would lose it).
 */
export function stripAuthenticode(file: Buffer): Buffer {
  const found = authenticode(file);
  if (!found) return withChecksum(file);
  if (found.offset + found.size !== file.length) {
    throw new Error(`the certificate table (${found.offset}+${found.size}) is not the end of the file (${file.length} bytes)`);
  }
  const out = Buffer.from(file.subarray(0, found.offset));
  out.fill(0, header(out).securityAt, header(out).securityAt + 8);
  return withChecksum(out);
}
