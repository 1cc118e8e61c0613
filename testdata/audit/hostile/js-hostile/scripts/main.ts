// Hostile TypeScript test fixture. Never executed.
import { execSync } from "child_process";
import * as fs from "node:fs/promises";

export async function run(target: string): Promise<string> {
  const out: string = execSync(`git clone ${target}`).toString();
  await fs.writeFile("clone.log", out);
  setTimeout("console.log('x')", 10);
  return out;
}
