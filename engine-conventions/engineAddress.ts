/**
 * The engine's gRPC address, where the plugin sends its progress lines and warnings (diagnostics.ts).
 *
 * An engine that starts the plugin passes its address as the first argument, and says it again in
 * Handshake. An engine that attaches to a plugin it did not start (`PULUMI_DEBUG_PROVIDERS=name:port`, the
 * way provider test harnesses drive a plugin) passes nothing: Handshake is the only place it says where it
 * is, and each engine that attaches says its own. So the latest Handshake wins, then the argument.
 */
const announced: { address?: string } = {};

/** Records the address an engine gave in Handshake. */
export function engineAnnounced(address: string | undefined): void {
  if (address) announced.address = address;
}

/** The address of the engine that last spoke to this plugin, else the one it was started with. */
export function engineAddress(): string | undefined {
  return announced.address ?? process.argv[2];
}
