/**
 * warp's `systemPrompt` option (native protocol): a file per prompt whose text replaces the
 * opening prose of that prompt — everything before `** User Query **` — the rest of the prompt
 * unchanged. The files are read before any model call; a missing or empty one, or the option in
 * the JSON protocol, is refused with INPUT_INVALID.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, WARP_QUESTION } from "../../../../test/warp/kit.ts";
import { type NativeModel, nativeDossier, startNativeModel } from "../../../../test/warp/native-kit.ts";

let model: NativeModel | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await cleanup();
  await model?.server.close();
  model = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function promptFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "warp-prompt-"));
  dirs.push(dir);
  const path = join(dir, "prompt.txt");
  writeFileSync(path, text);
  return path;
}

async function run(strategyOptions: Record<string, unknown>) {
  model = await startNativeModel({ expansions: 0 });
  const { dossier, docs } = nativeDossier(model);
  return dossier.research(WARP_QUESTION, {
    strategy: "warp",
    strategyOptions,
    docs,
    sources: "local-only",
  }).done;
}

describe("warp systemPrompt", () => {
  it("replaces the opening prose of the prompts it names, and only those", async () => {
    const write = promptFile("\nYou write one node of the survey, citing its passages.\n");
    const extendPlan = promptFile("You decide whether a section needs subsections.");
    const result = await run({ protocol: "native", systemPrompt: { write, extendPlan } });
    expect(result.status).toBe("completed");
    const { prompts } = model!;
    for (const p of prompts.write)
      expect(
        p.startsWith("You write one node of the survey, citing its passages.\n\n** User Query **\n"),
      ).toBe(true);
    expect(prompts["extend-plan"][0]).toMatch(
      /^You decide whether a section needs subsections\.\n\n\*\* User Query \*\*\n/,
    );
    // The rest of the prompt is Dossier's, unchanged; the other prompts keep Dossier's prose.
    expect(prompts.write[0]).toContain("\n** Analyzer's Instruction **\nYou need to update section-1\n");
    expect(prompts.search[0]).toMatch(/^You are the Searcher/);
    expect(prompts["init-plan"][0]).toMatch(/^You plan research reports/);
  });

  it("a missing or empty file, or the option outside the native protocol: INPUT_INVALID before any model call", async () => {
    const missing = await run({
      protocol: "native",
      systemPrompt: { search: join(tmpdir(), "no-such-warp-prompt.txt") },
    });
    expect(missing.error).toMatchObject({
      code: "INPUT_INVALID",
      message: expect.stringMatching(
        /^warp systemPrompt\.search: cannot read the system prompt file ".*no-such-warp-prompt\.txt" \(ENOENT\)$/,
      ),
    });
    expect(model!.server.requests).toHaveLength(0);
    await cleanup();
    await model!.server.close();

    const empty = await run({ protocol: "native", systemPrompt: { initPlan: promptFile("  \n") } });
    expect(empty.error).toMatchObject({
      code: "INPUT_INVALID",
      message: expect.stringMatching(/systemPrompt\.initPlan: .* is empty$/),
    });
    expect(model!.server.requests).toHaveLength(0);
    await cleanup();
    await model!.server.close();

    const json = await run({ systemPrompt: { write: promptFile("Prose.") } });
    expect(json.error).toMatchObject({
      code: "INPUT_INVALID",
      message: expect.stringMatching(/applies to the native protocol/),
    });
    expect(model!.server.requests).toHaveLength(0);
  });
});
