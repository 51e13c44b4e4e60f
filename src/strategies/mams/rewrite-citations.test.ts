/**
 * The state and the report agents' citations across rewrites, through `Dossier.research` with a
 * strict scripted model: a fact's evidence ids survive the state agent's rewrites, so the report
 * agent is still shown (and may cite) its source chunks later; `<sup>[n]</sup>` names the n-th
 * source listed to the report agent; a number naming no listed source is a recorded format error,
 * re-asked, and never reaches the report.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptReply, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import { type SmtlKit, shownIds, startSmtlKit } from "../../../test/smtl/kit.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { MAMS_MARKERS } from "./prompts.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

type Kind = keyof typeof MAMS_MARKERS;
const on = (kind: Kind, reply: ScriptReply | ((call: ScriptedCall) => ScriptReply)) =>
  ({ match: (prompt: string) => prompt.includes(MAMS_MARKERS[kind]), reply }) as ScriptStep;
const searches = (...queries: string[]) => queries.map((query) => ({ tool: "web_search", query }));
const turn = (plan: string, calls: object[]) => on("search", { json: { plan, calls } });
const finish = on("search", { json: { plan: "- [x] done", calls: [] } });
const block = (prompt: string, tag: string) =>
  new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(prompt)?.[1] ?? "";
const fragmentIds = (call: ScriptedCall) => shownIds(block(call.lastUser, "fragment"));
/** The evidence ids of the `<sources>` listing, in order: entry n is `[n - 1]`. */
const listed = (call: ScriptedCall) =>
  block(call.lastUser, "sources")
    .split("\n")
    .map((line, i) => {
      const m = /^\[(\d+)\] (E\d+) — /.exec(line);
      expect(Number(m?.[1])).toBe(i + 1);
      return m![2]!;
    });
const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);

async function research(steps: ScriptStep[], strategyOptions: Record<string, unknown> = {}) {
  kit = await startSmtlKit(steps);
  const events: DossierEvent[] = [];
  const result = await kit.dossier.research("When did the stations open?", {
    strategy: "mams",
    strategyOptions,
    onEvent: (e) => events.push(e),
  }).done;
  return { result, events, report: result.report! };
}

/** The evidence ids a final report cites, by number. */
const citedIds = (report: { evidenceByNumber: Record<number, string[]> }) =>
  Object.values(report.evidenceByNumber).flat();

describe("mams: provenance survives the memory's rewrites", () => {
  it("a fact of chunk 1 merged into another at chunk 2 keeps its id; a later report agent is shown and cites it", async () => {
    let a = "";
    let listing: string[] = [];
    const { report, events } = await research(
      [
        turn("- [ ] openings", searches("station 1", "station 4")),
        on("report", { json: { report: "## Openings\n\nThe line was built in stages." } }),
        on("state", (call) => {
          a = fragmentIds(call)[0]!;
          return { json: { memory: [`Station A opened in 1901 [${a}]`] } };
        }),
        on("report", { json: { report: "## Openings\n\nThe line was built in stages." } }),
        // Chunk 2 rewrites chunk 1's fact, merging it with a new one: both ids kept.
        on("state", (call) => {
          const [b] = fragmentIds(call);
          return { json: { memory: [`Stations A and B opened in 1901 and 1904 [${a}, ${b}]`] } };
        }),
        turn("- [ ] architect", searches("station 7")),
        // Chunk 3 (another search): the fact's first source is listed from the memory.
        on("report", (call) => {
          expect(fragmentIds(call)).not.toContain(a);
          expect(block(call.lastUser, "memory")).toContain(`[${a}, `);
          listing = listed(call);
          const n = listing.indexOf(a) + 1;
          return { json: { report: `## Openings\n\nStation A<sup>[${n}]</sup> opened in 1901.` } };
        }),
        on("state", (call) => ({ json: { memory: [block(call.lastUser, "memory").replace(/^F1\. /, "")] } })),
        finish,
      ],
      { chunkChars: 1000 },
    );
    expect(listing).toContain(a);
    expect(citedIds(report)).toEqual([a]);
    expect(report.body).toMatch(/## Openings\n\nStation A \[1\] opened in 1901\.\n?$/);
    expect(ofType(events, "decision").at(-1)!.details).toMatchObject({ memoryRewrites: 3, citationsRead: 1 });
  });
});

describe("mams: the report agent's <sup>[n]</sup> citations", () => {
  it("<sup>[2]</sup> names the second source listed to the report agent", async () => {
    let second = "";
    const { report, events } = await research([
      turn("- [ ] openings", searches("station 1")),
      on("report", (call) => {
        const listing = listed(call);
        // The fragment's passages are listed first, in order.
        expect(listing.slice(0, fragmentIds(call).length)).toEqual(fragmentIds(call));
        second = listing[1]!;
        return { json: { report: "## Openings\n\nThe second station<sup>[2]</sup> opened in 1902." } };
      }),
      on("state", (call) => ({ json: { memory: [`Station 2 opened in 1902 [${fragmentIds(call)[1]}]`] } })),
      finish,
    ]);
    expect(second).toMatch(/^E\d+$/);
    expect(report.evidenceByNumber).toEqual({ 1: [second] });
    expect(report.body).toMatch(/## Openings\n\nThe second station \[1\] opened in 1902\.\n?$/);
    expect(report.markdown).not.toContain("<sup>");
    expect(ofType(events, "format-error")).toEqual([]);
  });

  it("<sup>[99]</sup> is a recorded format error, re-asked; the corrected report cites a listed source", async () => {
    const { report, events } = await research([
      turn("- [ ] openings", searches("station 1")),
      on("report", { json: { report: "## Openings\n\nStation 1<sup>[99]</sup> opened in 1901." } }),
      on("report", (call) => {
        expect(call.lastUser).toMatch(/<sup>\[99\]<\/sup> name no source of <sources>/);
        return { json: { report: "## Openings\n\nStation 1<sup>[1]</sup> opened in 1901." } };
      }),
      on("state", (call) => ({ json: { memory: [`Station 1 opened in 1901 [${fragmentIds(call)[0]}]`] } })),
      finish,
    ]);
    const errors = ofType(events, "format-error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ role: "writer", reask: true });
    expect(errors[0]!.error).toContain("<sup>[99]</sup>");
    expect(report.markdown).not.toContain("99");
    expect(Object.keys(report.evidenceByNumber)).toEqual(["1"]);
    expect(report.checks.citations.dropped).toBe(0);
  });

  it("<sup>[99]</sup> given again when re-asked is dropped (CITATION_UNKNOWN): no dangling citation", async () => {
    const { report, events } = await research([
      turn("- [ ] openings", searches("station 1")),
      on("report", {
        json: { report: "## Openings\n\nStation 1<sup>[99]</sup> opened in 1901<sup>[1]</sup>." },
      }),
      on("report", {
        json: { report: "## Openings\n\nStation 1<sup>[99]</sup> opened in 1901<sup>[1]</sup>." },
      }),
      on("state", (call) => ({ json: { memory: [`Station 1 opened in 1901 [${fragmentIds(call)[0]}]`] } })),
      finish,
    ]);
    expect(ofType(events, "format-error")).toHaveLength(1);
    expect(ofType(events, "warning").filter((w) => w.code === "CITATION_UNKNOWN")).toHaveLength(1);
    expect(report.body).toMatch(/## Openings\n\nStation 1 opened in 1901 \[1\]\.\n?$/);
    expect(report.checks.citations.dropped).toBe(0);
    expect(ofType(events, "decision").at(-1)!.details).toMatchObject({ citationErrors: 1, citationsRead: 2 });
  });
});
