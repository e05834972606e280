// Renovate's own terraform manager on a root module, as a Renovate run does it, offline:
//   extract FILE                      -> the deps Renovate finds (extractPackageFile), with what it
//                                        reads from the .terraform.lock.hcl beside FILE
//   bump FILE DEP CURRENT NEW         -> the new `version` its hashicorp versioning gives
//                                        (getNewValue, rangeStrategy "replace") written into FILE
//                                        by its auto-replace (doAutoReplace), as its branch worker does
// usage: node renovate_module.mjs RENOVATE_DIR extract|bump FILE [DEP CURRENT_VERSION NEW_VERSION]
// Prints JSON. Runs in FILE's directory (Renovate's localDir).
import "./renovate_polyfill.mjs";
import { pathToFileURL } from "node:url";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";

const [renovateDir, command, path, depName, currentVersion, newVersion] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(`${renovateDir}/dist/${p}`).href);
process.chdir(dirname(path));
const file = basename(path);
const { GlobalConfig } = await load("config/global.js");
GlobalConfig.set({ localDir: process.cwd() });
const { extractPackageFile } = await load("modules/manager/terraform/extract.js");
const content = readFileSync(file, "utf8");
const extracted = await extractPackageFile(content, file, {});
if (command === "extract") {
  console.log(JSON.stringify(extracted.deps));
} else if (command === "bump") {
  const { api } = await load("modules/versioning/hashicorp/index.js");
  const { doAutoReplace } = await load("workers/repository/update/branch/auto-replace.js");
  const depIndex = extracted.deps.findIndex((d) => d.depName === depName);
  if (depIndex < 0) { console.error(`no dependency ${depName}`); process.exit(2); }
  const dep = extracted.deps[depIndex];
  const newValue = api.getNewValue({ currentValue: dep.currentValue, rangeStrategy: "replace", currentVersion, newVersion });
  const upgrade = { ...dep, depIndex, packageFile: file, manager: "terraform", newValue, newVersion, currentVersion };
  writeFileSync(file, await doAutoReplace(upgrade, content, false));
  console.log(JSON.stringify({ currentValue: dep.currentValue, newValue }));
} else {
  console.error(`unknown command ${command}`);
  process.exit(2);
}
