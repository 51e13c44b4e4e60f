/**
 * Plan review on the command line. `dossier research --review-plan` stops after the strategy's
 * plan: on a terminal the plan is shown and asked about — approve, edit it in $EDITOR (or give a
 * file), reject, or leave it for later; elsewhere the run id and the plan are printed, the run
 * stays `awaiting-review` and the command exits 0. `dossier runs review <id>` shows the plan
 * (`--json`: the plan as JSON, to edit), or answers it: `--approve`, `--plan <file>` (the edited
 * plan, checked before anything runs) or `--reject [--reason <text>]`; an approved run goes on in
 * this process (with a run queue configured: on a worker).
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DossierError } from "../../core/errors.ts";
import type { DossierEvent } from "../../core/events.ts";
import { applyPlanEdit, type PlanAnswer, type PlanEdit, parsePlanEdit } from "../../core/plan-edit.ts";
import type { PlanItem, ReviewPlan } from "../../core/review-plan.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import type { Dossier } from "../../runtime/dossier.ts";
import type { PlanReviewView } from "../../runtime/plan-review.ts";
import type { ResearchResult } from "../../runtime/research-handle.ts";
import { listenForInterrupts } from "../interrupts.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";

/** The plan as terminal lines: its title, then each item (model text shown as one escaped line each). */
export function formatPlan(plan: ReviewPlan): string {
  const line = (item: PlanItem, prefix: string, indent: string) => [
    terminalLine(`${indent}${prefix} ${item.title}  [${item.id}]`),
    ...(item.description ? [terminalLine(`${indent}    ${item.description}`)] : []),
  ];
  return [
    ...(plan.title ? [terminalLine(`Title: ${plan.title}`)] : []),
    ...plan.items.flatMap((item, i) => [
      ...line(item, `${i + 1}.`, "  "),
      ...(item.children ?? []).flatMap((child) => line(child, "-", "      ")),
    ]),
  ].join("\n");
}

/** How to answer a review from the command line. */
export function answerHint(runId: string): string {
  return `dossier runs review ${runId} --approve | --plan <edited.json> | --reject (the plan as JSON: dossier runs review ${runId} --json)`;
}

/** The plan awaiting review, printed where no one can be asked (the run stays awaiting review). */
export function printAwaitingReview(io: CliIo, result: ResearchResult): void {
  const { plan, runId } = result;
  io.out(
    `${[
      `Plan awaiting review (run ${runId}, ${result.record.strategy}${plan ? `, ${plan.items.length} ${plan.kind}` : ""}):`,
      ...(plan ? [formatPlan(plan)] : []),
      `Answer it: ${answerHint(runId)}`,
    ].join("\n")}\n`,
  );
}

/**
 * An edited plan from a file's JSON: the plan (as `dossier runs review --json` prints it, or as
 * GET /v1/runs/{id}/plan answers: `{plan: …}`), checked with zod; INPUT_INVALID naming the file.
 */
export function readPlanFile(path: string, cwd: string): PlanEdit {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, path), "utf8");
  } catch (cause) {
    throw new DossierError(
      "INPUT_INVALID",
      `cannot read the plan file ${path} (${(cause as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new DossierError("INPUT_INVALID", `the plan file ${path} is not JSON: ${(cause as Error).message}`);
  }
  const inner = (value as { plan?: unknown } | null)?.plan;
  const plan = inner && typeof inner === "object" && "items" in inner ? inner : value;
  try {
    return parsePlanEdit(plan);
  } catch (error) {
    throw new DossierError("INPUT_INVALID", `${path}: ${(error as Error).message}`);
  }
}

/** Opens `plan` as JSON in the user's editor; the edited plan, checked against `plan`'s limits. */
function editInEditor(io: CliIo, plan: ReviewPlan): PlanEdit {
  const dir = mkdtempSync(join(tmpdir(), "dossier-plan-"));
  const file = join(dir, "plan.json");
  try {
    writeFileSync(file, `${JSON.stringify(plan, null, 2)}\n`);
    const editor = io.env.VISUAL || io.env.EDITOR || "vi";
    const ran = spawnSync(`${editor} "${file}"`, { stdio: "inherit", shell: true });
    if (ran.status !== 0)
      throw new DossierError("INPUT_INVALID", `the editor (${editor}) exited with ${ran.status}`);
    const edit = readPlanFile(file, io.cwd);
    applyPlanEdit(plan, edit);
    return edit;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Asks on the terminal (`input`, default standard input) how to answer the review; null leaves it
 * for later. A bad edit is explained and asked again; nothing is answered until a valid one.
 */
export async function askReview(
  io: CliIo,
  result: ResearchResult,
  input: NodeJS.ReadableStream = process.stdin,
): Promise<PlanAnswer | null> {
  const plan = result.plan!;
  const { createInterface } = await import("node:readline");
  io.err(
    `\nThe ${result.record.strategy} strategy's plan (${plan.items.length} ${plan.kind}):\n${formatPlan(plan)}\n\n`,
  );
  const rl = createInterface({
    input,
    output: process.stderr,
    terminal: (input as { isTTY?: boolean }).isTTY === true,
  });
  let ended = false;
  rl.once("close", () => {
    ended = true;
  });
  // Lines are read in order, whether typed after the question or already waiting.
  const typed = rl[Symbol.asyncIterator]();
  const ask = async (question: string): Promise<string | null> => {
    io.err(question);
    const next = await typed.next();
    return next.done ? null : String(next.value).trim();
  };
  try {
    for (;;) {
      const choice = await ask("[a]pprove, [e]dit in $EDITOR, [f]ile <edited.json>, [r]eject, or [l]ater? ");
      // The end of the input leaves the review for later.
      if (choice === null) return null;
      try {
        const [word, ...rest] = choice.split(/\s+/);
        switch ((word ?? "").toLowerCase()) {
          case "a":
          case "approve":
            return { action: "approve" };
          case "e":
          case "edit": {
            // The editor has the terminal to itself meanwhile.
            if (!ended) rl.pause();
            try {
              return { action: "edit", plan: editInEditor(io, plan) };
            } finally {
              if (!ended) rl.resume();
            }
          }
          case "f":
          case "file": {
            const edit = readPlanFile(rest.join(" "), io.cwd);
            applyPlanEdit(plan, edit);
            return { action: "edit", plan: edit };
          }
          case "r":
          case "reject": {
            const reason = (await ask("Why (optional)? ")) ?? "";
            return { action: "reject", ...(reason ? { reason } : {}) };
          }
          case "l":
          case "later":
            return null;
          default:
            io.err("answer a, e, f <file>, r or l\n");
        }
      } catch (error) {
        // A bad edit changes nothing: say why and ask again.
        io.err(`dossier: ${(error as Error).message}\n`);
      }
    }
  } finally {
    rl.close();
  }
}

/** The flags of `dossier runs review`. */
export interface ReviewFlags extends GlobalFlags {
  approve?: boolean;
  plan?: string;
  reject?: boolean;
  reason?: string;
  json?: boolean;
}

/** The answer the flags give, or null when they give none (show the plan). INPUT_INVALID for two at once. */
export function answerOfFlags(flags: ReviewFlags, cwd: string): PlanAnswer | null {
  const given = [
    flags.approve && "--approve",
    flags.plan !== undefined && "--plan",
    flags.reject && "--reject",
  ].filter(Boolean);
  if (given.length > 1)
    throw new DossierError("INPUT_INVALID", `give one of ${given.join(", ")}, not several`);
  if (flags.reason !== undefined && !flags.reject)
    throw new DossierError("INPUT_INVALID", "--reason goes with --reject");
  if (flags.approve) return { action: "approve" };
  if (flags.plan !== undefined) return { action: "edit", plan: readPlanFile(flags.plan, cwd) };
  if (flags.reject)
    return { action: "reject", ...(flags.reason?.trim() ? { reason: flags.reason.trim() } : {}) };
  return null;
}

/** Shows a run's plan review: as JSON (`--json`, the plan to edit), else as text. */
export function printReview(io: CliIo, view: PlanReviewView, json: boolean): void {
  if (json) {
    io.out(`${terminalJson(view)}\n`);
    return;
  }
  const lines = [
    terminalLine(`run       ${view.runId} (${view.status})`),
    terminalLine(
      `review    ${view.stage}${view.stage === "pending" ? ` until ${view.deadline}` : ""}${view.reason ? `: ${view.reason}` : ""}`,
    ),
    formatPlan(view.plan),
  ];
  if (view.stage === "pending") lines.push(`Answer it: ${answerHint(view.runId)}`);
  io.out(`${lines.join("\n")}\n`);
}

/** Answers a review with `answer` and, for an approval, follows the run to its end here; the exit code. */
export async function answerAndFollow(
  io: CliIo,
  dossier: Dossier,
  runId: string,
  answer: PlanAnswer,
  options: {
    json: boolean;
    signal: AbortSignal;
    terminated: () => boolean;
    onEvent?: (e: DossierEvent) => void;
  },
): Promise<number> {
  const { printRunResult } = await import("./research-output.ts");
  const queueUrl = dossier.config.redisUrl;
  if (queueUrl && answer.action !== "reject") {
    // With a run queue the run goes on on a worker: the answer enqueues its resume.
    const [{ openRunQueue }, { queuedResearch }] = await Promise.all([
      import("../../queue/run-queue.ts"),
      import("../../queue/queued-research.ts"),
    ]);
    const queue = openRunQueue({ url: queueUrl });
    try {
      const queued = queuedResearch(dossier, queue, { cwd: io.cwd });
      const answered = await queued.runs.review(runId, answer);
      await answered.handle?.enqueued;
      queued.detach();
      io.out(
        `${terminalLine(`run ${runId}: plan ${answer.action === "edit" ? "edited" : "approved"}; its resume is queued for a worker`)}\n`,
      );
      return 0;
    } finally {
      await queue.close();
    }
  }
  const answered = await dossier.runs.review(runId, answer, {
    signal: options.signal,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  if (!answered.handle) {
    io.out(
      `${terminalLine(`run ${runId}: plan rejected; the run is cancelled (${answered.record.stopReason})`)}\n`,
    );
    return 0;
  }
  if (!options.json)
    io.err(`dossier: plan ${answer.action === "edit" ? "edited" : "approved"}; run ${runId} goes on\n`);
  return printRunResult(io, await answered.handle.done, {
    json: options.json,
    terminated: options.terminated(),
  });
}

/** `dossier runs review <id>`: shows the review, or answers it and follows an approved run here; the exit code. */
export async function reviewRun(io: CliIo, id: string, flags: ReviewFlags): Promise<number> {
  const answer = answerOfFlags(flags, io.cwd);
  const { createDossierForCli } = await import("../dossier-cli.ts");
  const dossier = createDossierForCli(io, flags);
  const interrupts = listenForInterrupts();
  try {
    const runId = await dossier.runs.resolveId(id);
    if (!answer) {
      const view = await dossier.runs.plan(runId);
      if (!view) {
        throw new DossierError(
          "NOT_FOUND",
          `run ${runId} has no plan review: it was not started with --review-plan, or has not reached its plan yet`,
        );
      }
      printReview(io, view, flags.json === true);
      return 0;
    }
    return await answerAndFollow(io, dossier, runId, answer, {
      json: flags.json === true,
      signal: interrupts.signal,
      terminated: interrupts.terminated,
    });
  } finally {
    interrupts.stop();
    await dossier.close();
  }
}
