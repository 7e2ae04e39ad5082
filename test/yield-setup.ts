import { beforeEach } from "vitest";

/**
 * Every test starts after a turn of the event loop. A worker's messages to vitest's main process wait for
 * their answers with a fixed 60 s timer, and a file of synchronous tests (the workflow tests once ran each
 * step with spawnSync) never lets the worker read an answer: once such a file ran past 60 s on a loaded CI
 * machine, the timer fired, vitest reported `Timeout calling "onTaskUpdate"`, and the run failed with every
 * test passed. A turn between tests reads the answers; a single test that holds the loop for 60 s would
 * still trip it, which is why no test starts a command synchronously (test/architecture/no-sync-commands.test.ts)
 * and the profile names every hold of 5 s or more (test/profile-setup.ts).
 */
beforeEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
