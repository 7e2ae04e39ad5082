/**
 * Whether a host name is this machine. Its own module so that the config loader, which refuses a key over
 * plain http to any other host, reads it without loading the transport (undici).
 */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}
