/**
 * The sampling each strategy states reaches the wire: every strategy the loopback research world
 * can run, with its default options, is run with one model per role, and every chat request the
 * model server receives carries the temperature and top-p the strategy's table states for that
 * role (none when none is stated) and an output cap within the stated one. The table is what
 * `dossier strategies` lists and docs/strategies.md shows (checked against the docs below).
 */

import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { ROLES, type Role } from "../llm/model-spec.ts";
import { createStrategyRegistry } from "./registry.ts";
import { samplingTable } from "./sampling-table.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const registry = createStrategyRegistry();
/** Each role its own model, so a request names the role it was made for. */
const MODELS = Object.fromEntries(ROLES.map((r) => [r, `openai-compatible:wire-${r}`]));
const roleOf = (body: { model: string }) => body.model.replace(/^wire-/, "") as Role;

/** What the world's scripted model answers: these strategies, protocols and modes. */
const CASES: { strategy: string; protocol: string | null; strategyOptions: Record<string, unknown> }[] = [
  { strategy: "graph", protocol: null, strategyOptions: {} },
  { strategy: "minddr", protocol: "json", strategyOptions: {} },
  { strategy: "smtl", protocol: "json", strategyOptions: { mode: "answer", maxSteps: 4 } },
  { strategy: "warp", protocol: "json", strategyOptions: {} },
  { strategy: "mams", protocol: null, strategyOptions: {} },
];

describe("sampling on the wire", () => {
  for (const c of CASES) {
    it(`${c.strategy}${c.protocol ? ` (${c.protocol})` : ""}: every request carries its role's stated sampling`, async () => {
      world = await startResearchWorld({ config: { models: MODELS } });
      const result = await world.research({
        query: "Which topic saw measured growth in the 2025 survey?",
        strategy: c.strategy,
        strategyOptions: { ...c.strategyOptions, ...(c.protocol ? { protocol: c.protocol } : {}) },
        currentDate: "2026-03-01",
        formats: ["md"],
      });
      expect(result.record.status).toBe("completed");
      const table = samplingTable(registry.get(c.strategy)).find((p) => p.protocol === c.protocol)!;
      const chats = world.model.requests.filter((r) => r.path.endsWith("/chat/completions"));
      expect(chats.length).toBeGreaterThan(2);
      for (const request of chats) {
        const body = request.body as {
          model: string;
          temperature?: number;
          top_p?: number;
          max_tokens?: number;
        };
        const stated = table.roles[roleOf(body)];
        const where = `${c.strategy} ${roleOf(body)}`;
        expect(body.temperature, where).toBe(stated?.temperature);
        expect(body.top_p, where).toBe(stated?.topP);
        if (stated?.maxOutputTokens)
          expect(body.max_tokens, where).toBeLessThanOrEqual(stated.maxOutputTokens);
      }
    });
  }
});

/** The rows of the sampling table in docs/strategies.md. */
function documentedTable(): Map<string, { temperature?: number; topP?: number; maxOutputTokens?: number }> {
  const docs = readFileSync(new URL("../../docs/strategies.md", import.meta.url), "utf8");
  const section = docs.slice(
    docs.indexOf("## Sampling"),
    docs.indexOf("\n## ", docs.indexOf("## Sampling") + 3),
  );
  const rows = new Map<string, { temperature?: number; topP?: number; maxOutputTokens?: number }>();
  for (const line of section.split("\n")) {
    const cells = /^\| `([^`]+)` \| (?:`([^`]+)`|—) \| `([^`]+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|/.exec(
      line,
    );
    if (!cells) continue;
    const num = (cell: string) => (cell.trim() === "—" ? undefined : Number(cell.trim()));
    const [temperature, topP, maxOutputTokens] = [num(cells[4]!), num(cells[5]!), num(cells[6]!)];
    rows.set(`${cells[1]} ${cells[2] ?? "-"} ${cells[3]}`, {
      ...(temperature === undefined ? {} : { temperature }),
      ...(topP === undefined ? {} : { topP }),
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    });
  }
  return rows;
}

describe("the sampling table of docs/strategies.md", () => {
  it("is the strategies' table: every strategy, protocol and role, no more, no less", () => {
    const documented = documentedTable();
    const stated = new Map<string, object>();
    for (const definition of registry.list())
      for (const p of samplingTable(definition))
        for (const [role, sampling] of Object.entries(p.roles))
          stated.set(`${definition.name} ${p.protocol ?? "-"} ${role}`, sampling);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(stated));
  });
});
