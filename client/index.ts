export * from "./client";
export * from "./errors";
export * from "./transport";
export * from "./schemas";
export { isLoopbackHost } from "./loopback";
export * from "./rate-budget";
export { DERIVED_KEY_HEX_LENGTH, DERIVED_KEY_PREFIX, SERVICE_TEXT_MAX, serviceTextScrubber } from "./errors";
