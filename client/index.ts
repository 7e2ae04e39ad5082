export * from "./client";
export * from "./errors";
export * from "./retry";
export * from "./schemas";
export { Transport, defaultDispatcher, isLoopbackHost } from "./transport";
export type { TransportOptions, AttemptEvent, Call } from "./transport";
export * from "./masked-id";
export * from "./rate-budget";
export * from "./status-board";
