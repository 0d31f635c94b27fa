// Preloaded (node --import) into scripts under test that must stop before building or serving:
// a child process there would be `next build` or the server, so it fails loudly instead of running.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]) {
  childProcess[name] = () => {
    throw new Error(`the script under test started a child process (${name}) it should not have reached`);
  };
}
syncBuiltinESMExports();
