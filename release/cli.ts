import * as path from "node:path";
import { parseArgs, USAGE } from "./args";
import { writeRelease } from "./release";

// `npm run release -- --version <semver> [--plugin-download-url <url>] --out <dir>` (scripts/release.sh
// gives the Pulumi CLI as PULUMI_REMOTE_BROWSER_PULUMI).
async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  const args = parseArgs(argv);
  if (args instanceof Error) {
    console.error(`release: ${args.message}\n\n${USAGE}`);
    return 2;
  }
  const pulumi = process.env.PULUMI_REMOTE_BROWSER_PULUMI || "pulumi";
  // npm runs scripts in the package folder; a relative --out is meant from where the user typed it.
  args.out = path.resolve(process.env.INIT_CWD || process.cwd(), args.out);
  const output = await writeRelease(args, pulumi, (line) => console.error(`release: ${line}`));
  for (const a of output.archives) console.log(`${a.file}\t${a.fileType}\t${(a.bytes / 1e6).toFixed(1)} MB`);
  for (const f of output.files.slice(output.archives.length)) console.log(f);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`release: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
