import * as fs from "node:fs";

/**
 * What kind of executable a file is, from its header, in the words of file(1): enough to tell that each
 * archive holds a binary for its platform, on a machine that cannot run most of them.
 */
export function fileType(file: string): string {
  const fd = fs.openSync(file, "r");
  const head = Buffer.alloc(4096);
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.readUInt32BE(0) === 0x7f454c46) {
    const bits = head[4] === 2 ? "64-bit" : "32-bit";
    const machine = head.readUInt16LE(18);
    return `ELF ${bits} ${ELF_MACHINES[machine] ?? `machine ${machine}`}`;
  }
  if (head.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = head.readUInt32LE(4);
    return `Mach-O 64-bit ${MACHO_CPUS[cpu] ?? `cpu ${cpu}`}`;
  }
  if (head.toString("latin1", 0, 2) === "MZ") {
    const pe = head.readUInt32LE(0x3c);
    if (pe + 26 <= head.length && head.toString("latin1", pe, pe + 4) === "PE\0\0") {
      const machine = head.readUInt16LE(pe + 4);
      const kind = head.readUInt16LE(pe + 24) === 0x20b ? "PE32+" : "PE32";
      return `${kind} ${PE_MACHINES[machine] ?? `machine ${machine}`}`;
    }
  }
  return "unknown";
}

const ELF_MACHINES: Record<number, string> = { 0x3e: "x86-64", 0xb7: "aarch64" };
const MACHO_CPUS: Record<number, string> = { 0x01000007: "x86_64", 0x0100000c: "arm64" };
const PE_MACHINES: Record<number, string> = { 0x8664: "x86-64", 0xaa64: "Aarch64" };
