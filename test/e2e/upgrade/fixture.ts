/**
 * The recorded stack of the upgrade test (made by record.ts with release 0.1.0): its secrets are
 * encrypted under this passphrase, and its sessions belonged to the emulator account of this key.
 * Both are fixtures of the test, not credentials of anything.
 */
export const UPGRADE_PASSPHRASE = "upgrade-fixture-passphrase";
export const UPGRADE_API_KEY = "rb_test_upgrade_fixture_key";
export const UPGRADE_STATE_FILE = "state-v0.1.0.json";
export const UPGRADE_SESSIONS_FILE = "sessions-v0.1.0.json";

/**
 * A stack whose ReviewSessions has the dynamic sessions of the releases before the sessions became the
 * plugin's own BrowserSession (recorded with test/e2e/programs/upgrade-review.js, as record.ts describes).
 */
export const REVIEW_STATE_FILE = "state-dynamic-review.json";
export const REVIEW_SESSIONS_FILE = "sessions-dynamic-review.json";
