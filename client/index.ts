export * from "./client";
export * from "./errors";
export * from "./transport";
export * from "./schemas";
export { isLoopbackHost } from "./limits";
export * from "./rate-budget";
