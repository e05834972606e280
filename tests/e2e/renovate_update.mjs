// Bump one provider in a lock file with Renovate's own terraform lock-file code
// (renovate/dist/modules/manager/terraform/lockfile/util.js: extractLocks, writeLockUpdates),
// as its updateArtifacts does once it has the new version's hashes.
// usage: node renovate_update.mjs RENOVATE_DIR LOCK_FILE PROVIDER NEW_VERSION HASH...
import { pathToFileURL } from "node:url";
import { readFileSync, writeFileSync } from "node:fs";

const [renovateDir, lockPath, provider, newVersion, ...newHashes] = process.argv.slice(2);
const util = await import(pathToFileURL(`${renovateDir}/dist/modules/manager/terraform/lockfile/util.js`).href);
const text = readFileSync(lockPath, "utf8");
const locks = util.extractLocks(text);
const lock = locks.find((l) => l.packageName === provider);
if (!lock) {
  console.error(`no lock for ${provider}`);
  process.exit(2);
}
const update = { ...lock, newVersion, newConstraint: lock.constraints, newHashes };
writeFileSync(lockPath, util.writeLockUpdates([update], lockPath, text).file.contents);
