/**
 * `dossier mcp` when its client goes away mid-run: stdin closes while `deep_research` waits on a
 * model call; the run is not cancelled — it ends completed, its report written — and then the
 * process exits, having said so on stderr.
 */

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { worldCliEnv } from "../../test/research/world-cli.ts";
import { createDossier } from "../runtime/dossier.ts";

const main = fileURLToPath(new URL("../cli/main.ts", import.meta.url));

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("dossier mcp — a client that goes away", () => {
  it("lets the run under way finish, then exits", { timeout: 90_000 }, async () => {
    let armed = true;
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    let reached!: () => void;
    const waiting = new Promise<void>((resolve) => {
      reached = resolve;
    });
    world = await startResearchWorld({
      subtasks: 2,
      hold: async () => {
        if (!armed) return;
        armed = false;
        reached();
        await opened;
      },
    });
    const env = { ...worldCliEnv(world), PATH: process.env.PATH ?? "" };
    const child = spawn(process.execPath, [main, "mcp"], {
      cwd: world.home,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c) => {
      stderr += String(c);
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "leaving", version: "1" },
      },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "deep_research",
        arguments: { question: "How is topic adoption changing?", strategy: "minddr" },
      },
    });
    await waiting;
    // The client leaves while the model call is in flight; then the model answers.
    child.stdin.end();
    await new Promise<void>((resolve) => {
      const check = () => (stderr.includes("has gone") ? resolve() : setTimeout(check, 20));
      check();
    });
    open();
    expect(await exited).toBe(0);
    expect(stderr).toContain("the MCP client has gone; 1 run(s) under way go on until they end");

    const dossier = createDossier({ env: { DOSSIER_HOME: world.home }, cwd: world.home });
    try {
      const [run] = await dossier.runs.list();
      expect(run).toMatchObject({ status: "completed", stopReason: "completed" });
    } finally {
      await dossier.close();
    }
  });
});
