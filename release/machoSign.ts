import * as crypto from "node:crypto";

/**
 * Ad-hoc code signatures of 64-bit Mach-O executables, the least macOS on Apple silicon runs: an embedded
 * signature (a SuperBlob) holding one CodeDirectory of SHA-256 hashes over the file's 4 KiB pages, flagged
 * ad hoc, with no certificate. The layout is the one Apple's linker and Go's linker write for ad-hoc
 * signatures (xnu's osfmk/kern/cs_blobs.h), so a signature made here can be held byte for byte to Go's
 * (test/release/macho-sign.test.ts). Injecting the single-executable blob rewrites the binary and drops
 * Node's own signature; without a new one the kernel kills the plugin at its first instruction.
 */

const MH_MAGIC_64 = 0xfeedfacf;
const MH_EXECUTE = 0x2;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;

const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSSLOT_CODEDIRECTORY = 0;
/** The CodeDirectory version with the exec-segment fields (0x20400), the first that carries them. */
const CD_VERSION = 0x20400;
/**
 * Ad hoc (0x2) and linker-signed (0x20000), as the linkers write it: macOS runs it as an ad-hoc signature,
 * and `codesign` replaces it without `--force` when a user signs the binary with an identity of their own.
 */
const CD_FLAGS = 0x20002;
const CS_HASHTYPE_SHA256 = 2;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;
const HASH_BYTES = 32;
const SUPERBLOB_HEADER = 12;
const BLOB_INDEX = 8;
const CD_HEADER = 88;
/** Segments grow in whole pages of the largest page size macOS uses (16 KiB on Apple silicon). */
const SEGMENT_ALIGN = 0x4000;

interface Segment {
  /** Offset of its load command in the file. */
  at: number;
  name: string;
  vmsize: bigint;
  fileoff: number;
  filesize: number;
}

interface MachO {
  filetype: number;
  ncmds: number;
  sizeofcmds: number;
  text: Segment;
  linkedit: Segment;
  /** The LC_CODE_SIGNATURE command: its offset in the file, and the signature's place. */
  signature?: { at: number; dataoff: number; datasize: number };
  /** Where the first section's bytes start: load commands may grow up to here. */
  firstSectionOffset: number;
}

function parse(file: Buffer): MachO {
  if (file.length < 32 || file.readUInt32LE(0) !== MH_MAGIC_64) {
    throw new Error("not a 64-bit little-endian Mach-O file (a universal binary or another format cannot be signed here)");
  }
  const filetype = file.readUInt32LE(12);
  const ncmds = file.readUInt32LE(16);
  const sizeofcmds = file.readUInt32LE(20);
  const segments: Segment[] = [];
  let signature: MachO["signature"];
  let firstSectionOffset = Infinity;
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    if (at + 8 > 32 + sizeofcmds) throw new Error(`load command ${i} runs past the load commands' end`);
    const cmd = file.readUInt32LE(at);
    const cmdsize = file.readUInt32LE(at + 4);
    if (cmdsize < 8 || at + cmdsize > 32 + sizeofcmds) throw new Error(`load command ${i} has a bad size ${cmdsize}`);
    if (cmd === LC_SEGMENT_64) {
      const nsects = file.readUInt32LE(at + 64);
      segments.push({
        at,
        name: file.toString("latin1", at + 8, at + 24).replace(/\0+$/, ""),
        vmsize: file.readBigUInt64LE(at + 32),
        fileoff: Number(file.readBigUInt64LE(at + 40)),
        filesize: Number(file.readBigUInt64LE(at + 48)),
      });
      for (let s = 0; s < nsects; s++) {
        const sect = at + 72 + 80 * s;
        const offset = file.readUInt32LE(sect + 48);
        const flags = file.readUInt32LE(sect + 64);
        // Zero-fill sections (S_ZEROFILL and kin: type 1, 12, 18) have no bytes in the file.
        const type = flags & 0xff;
        if (offset > 0 && type !== 1 && type !== 12 && type !== 18) firstSectionOffset = Math.min(firstSectionOffset, offset);
      }
    } else if (cmd === LC_CODE_SIGNATURE) {
      signature = { at, dataoff: file.readUInt32LE(at + 8), datasize: file.readUInt32LE(at + 12) };
    }
    at += cmdsize;
  }
  const text = segments.find((s) => s.name === "__TEXT");
  const linkedit = segments.find((s) => s.name === "__LINKEDIT");
  if (!text || !linkedit) throw new Error("the Mach-O file has no __TEXT or no __LINKEDIT segment");
  if (linkedit.fileoff + linkedit.filesize > file.length) throw new Error("__LINKEDIT runs past the end of the file");
  return { filetype, ncmds, sizeofcmds, text, linkedit, signature, firstSectionOffset };
}

const align = (n: number, to: number) => Math.ceil(n / to) * to;

/** The size of the signature of `codeLimit` bytes under `identifier`. */
function signatureSize(codeLimit: number, identifier: string): number {
  const pages = Math.ceil(codeLimit / PAGE);
  return SUPERBLOB_HEADER + BLOB_INDEX + CD_HEADER + Buffer.byteLength(identifier) + 1 + pages * HASH_BYTES;
}

/**
 * `file` signed ad hoc as `identifier`: an existing signature (Node's own, or a linker's) is replaced, and
 * a binary without one gets an LC_CODE_SIGNATURE command. The signature is the last thing in the file and
 * in __LINKEDIT, whose sizes grow to hold it. Returns a new buffer; `file` is not changed.
 */
export function signAdHoc(file: Buffer, identifier: string): Buffer {
  if (!/^[\x21-\x7e]+$/.test(identifier)) throw new Error(`identifier ${JSON.stringify(identifier)}: printable ASCII without spaces only`);
  const m = parse(file);
  const linkeditEnd = m.linkedit.fileoff + m.linkedit.filesize;
  let out: Buffer;
  let commandAt: number;
  let sigOff: number;
  if (m.signature) {
    const { dataoff, datasize } = m.signature;
    // Anything after the signature would be outside every hash, and the kernel refuses such a file.
    if (dataoff + datasize !== file.length || linkeditEnd !== file.length) {
      throw new Error(`the signature (${dataoff}+${datasize}) is not the end of __LINKEDIT (${linkeditEnd}) and of the file (${file.length})`);
    }
    sigOff = dataoff;
    commandAt = m.signature.at;
    out = Buffer.from(file.subarray(0, sigOff));
  } else {
    if (linkeditEnd !== file.length) throw new Error(`__LINKEDIT ends at ${linkeditEnd}, not at the file's end (${file.length}): bytes after it would be unsigned`);
    const commandsEnd = 32 + m.sizeofcmds;
    if (commandsEnd + 16 > m.firstSectionOffset) throw new Error("no room after the load commands for LC_CODE_SIGNATURE");
    for (let i = commandsEnd; i < commandsEnd + 16; i++) {
      if (file[i] !== 0) throw new Error("the space after the load commands is not free (non-zero bytes)");
    }
    // The signature starts 16-byte aligned, as Apple's tools place it.
    sigOff = align(file.length, 16);
    commandAt = commandsEnd;
    out = Buffer.alloc(sigOff);
    file.copy(out);
    out.writeUInt32LE(m.ncmds + 1, 16);
    out.writeUInt32LE(m.sizeofcmds + 16, 20);
    out.writeUInt32LE(LC_CODE_SIGNATURE, commandAt);
    out.writeUInt32LE(16, commandAt + 4);
    out.writeUInt32LE(sigOff, commandAt + 8);
    out.writeUInt32LE(0, commandAt + 12);
  }
  const size = signatureSize(sigOff, identifier);
  if (!m.signature || m.signature.datasize !== size) {
    out.writeUInt32LE(size, commandAt + 12);
    const filesize = sigOff + size - m.linkedit.fileoff;
    out.writeBigUInt64LE(BigInt(filesize), m.linkedit.at + 48);
    if (m.linkedit.vmsize < BigInt(filesize)) out.writeBigUInt64LE(BigInt(align(filesize, SEGMENT_ALIGN)), m.linkedit.at + 32);
  }
  return Buffer.concat([out, codeSignature(out, identifier, m)]);
}

/** The embedded signature of `code` (the file up to where the signature goes). */
function codeSignature(code: Buffer, identifier: string, m: MachO): Buffer {
  const pages = Math.ceil(code.length / PAGE);
  const ident = Buffer.from(`${identifier}\0`, "latin1");
  const size = signatureSize(code.length, identifier);
  const sig = Buffer.alloc(size);
  sig.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, 0);
  sig.writeUInt32BE(size, 4);
  sig.writeUInt32BE(1, 8);
  sig.writeUInt32BE(CSSLOT_CODEDIRECTORY, 12);
  sig.writeUInt32BE(SUPERBLOB_HEADER + BLOB_INDEX, 16);
  const cd = SUPERBLOB_HEADER + BLOB_INDEX;
  const identOffset = CD_HEADER;
  const hashOffset = identOffset + ident.length;
  sig.writeUInt32BE(CSMAGIC_CODEDIRECTORY, cd);
  sig.writeUInt32BE(size - cd, cd + 4);
  sig.writeUInt32BE(CD_VERSION, cd + 8);
  sig.writeUInt32BE(CD_FLAGS, cd + 12);
  sig.writeUInt32BE(hashOffset, cd + 16);
  sig.writeUInt32BE(identOffset, cd + 20);
  sig.writeUInt32BE(0, cd + 24); // no special slots: no Info.plist, requirements or entitlements
  sig.writeUInt32BE(pages, cd + 28);
  sig.writeUInt32BE(code.length, cd + 32);
  sig.writeUInt8(HASH_BYTES, cd + 36);
  sig.writeUInt8(CS_HASHTYPE_SHA256, cd + 37);
  sig.writeUInt8(PAGE_BITS, cd + 39);
  // scatter, team id, codeLimit64 stay 0; then the executable segment, which the kernel checks JIT rights by.
  sig.writeBigUInt64BE(BigInt(m.text.fileoff), cd + 64);
  sig.writeBigUInt64BE(BigInt(m.text.filesize), cd + 72);
  sig.writeBigUInt64BE(BigInt(m.filetype === MH_EXECUTE ? CS_EXECSEG_MAIN_BINARY : 0), cd + 80);
  ident.copy(sig, cd + identOffset);
  for (let p = 0; p < pages; p++) {
    crypto
      .createHash("sha256")
      .update(code.subarray(p * PAGE, Math.min((p + 1) * PAGE, code.length)))
      .digest()
      .copy(sig, cd + hashOffset + p * HASH_BYTES);
  }
  return sig;
}

/** What a verified ad-hoc signature says. */
export interface AdHocSignature {
  identifier: string;
  pages: number;
  flags: number;
}

/**
 * Checks `file`'s embedded signature as the kernel does for an ad-hoc one: it is the end of the file and of
 * __LINKEDIT, its CodeDirectory hashes with SHA-256 over 4 KiB pages every byte before it, and each page's
 * hash is the one recorded. Throws naming the first thing that is wrong.
 */
export function verifyAdHoc(file: Buffer): AdHocSignature {
  const m = parse(file);
  if (!m.signature) throw new Error("the binary has no code signature (no LC_CODE_SIGNATURE)");
  const { dataoff, datasize } = m.signature;
  if (dataoff + datasize !== file.length) throw new Error(`the signature (${dataoff}+${datasize}) does not end the file (${file.length} bytes)`);
  if (m.linkedit.fileoff + m.linkedit.filesize !== file.length) throw new Error("__LINKEDIT does not end with the signature");
  const sig = file.subarray(dataoff);
  if (sig.readUInt32BE(0) !== CSMAGIC_EMBEDDED_SIGNATURE) throw new Error("the signature is not an embedded-signature SuperBlob");
  const count = sig.readUInt32BE(8);
  let cd = -1;
  for (let i = 0; i < count; i++) {
    if (sig.readUInt32BE(12 + 8 * i) === CSSLOT_CODEDIRECTORY) cd = sig.readUInt32BE(16 + 8 * i);
  }
  if (cd < 0 || sig.readUInt32BE(cd) !== CSMAGIC_CODEDIRECTORY) throw new Error("the signature has no CodeDirectory");
  const flags = sig.readUInt32BE(cd + 12);
  const hashOffset = sig.readUInt32BE(cd + 16);
  const identOffset = sig.readUInt32BE(cd + 20);
  const pages = sig.readUInt32BE(cd + 28);
  const codeLimit = sig.readUInt32BE(cd + 32);
  const hashSize = sig[cd + 36];
  const hashType = sig[cd + 37];
  const pageBits = sig[cd + 39];
  if ((flags & 0x2) === 0) throw new Error(`the CodeDirectory is not ad hoc (flags 0x${flags.toString(16)})`);
  if (hashType !== CS_HASHTYPE_SHA256 || hashSize !== HASH_BYTES || pageBits !== PAGE_BITS) {
    throw new Error(`the CodeDirectory hashes with type ${hashType}, ${hashSize} bytes, pages of 2^${pageBits}: expected SHA-256 over 4 KiB pages`);
  }
  if (codeLimit !== dataoff) throw new Error(`the CodeDirectory covers ${codeLimit} bytes, but the signature starts at ${dataoff}`);
  if (pages !== Math.ceil(codeLimit / PAGE)) throw new Error(`the CodeDirectory has ${pages} page hashes for ${codeLimit} bytes`);
  if (sig.readBigUInt64BE(cd + 64) !== BigInt(m.text.fileoff) || sig.readBigUInt64BE(cd + 72) !== BigInt(m.text.filesize)) {
    throw new Error("the CodeDirectory's executable segment is not __TEXT");
  }
  for (let p = 0; p < pages; p++) {
    const want = sig.subarray(cd + hashOffset + p * HASH_BYTES, cd + hashOffset + (p + 1) * HASH_BYTES);
    const got = crypto
      .createHash("sha256")
      .update(file.subarray(p * PAGE, Math.min((p + 1) * PAGE, codeLimit)))
      .digest();
    if (!got.equals(want)) throw new Error(`page ${p} (bytes ${p * PAGE}–${Math.min((p + 1) * PAGE, codeLimit) - 1}) does not match its hash in the signature`);
  }
  const end = sig.indexOf(0, cd + identOffset);
  return { identifier: sig.toString("latin1", cd + identOffset, end), pages, flags };
}
