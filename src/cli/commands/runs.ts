/**
 * `dossier runs list | show <id> | events <id> | cancel <id> | review <id> | resume <id>`: the
 * history of runs (with what is queued and running, and with the run queue its depth and
 * workers), their audit trails, cancelling a queued or running run, answering the review of a
 * run's plan (runs-review.ts), and taking up a run that did not finish.
 */

import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { type RunRecord, runStatusSchema } from "../../core/run.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import type { RunsApi } from "../../runtime/runs-api.ts";
import { CliExit } from "../errors.ts";
import type { CliIo } from "../io.ts";
import { openCliServices } from "../services.ts";
import type { GlobalFlags } from "../settings.ts";
import { commandEntry } from "./catalog.ts";
import { formatEvent } from "./event-line.ts";
import { readQueueStatus } from "./queue-status.ts";
import type { ReviewFlags } from "./runs-review.ts";

export { formatEvent } from "./event-line.ts";

function usageLine(run: RunRecord): string {
  const u = run.usage;
  if (!u) return "usage unknown";
  const tokens =
    u.inputTokens === null || u.outputTokens === null
      ? "tokens unknown"
      : `${u.inputTokens}+${u.outputTokens} tokens`;
  const cost = u.costUsd === null ? "cost unknown" : `$${u.costUsd.toFixed(4)}`;
  return `${u.llmCalls} LLM calls, ${u.toolCalls} tool calls, ${tokens}, ${cost}`;
}

/** One line per run for `runs list`. */
export function formatRunLine(run: RunRecord): string {
  const query = run.query.length > 60 ? `${run.query.slice(0, 57)}…` : run.query;
  return terminalLine(
    `${run.id}  ${run.status.padEnd(9)}  ${run.strategy.padEnd(8)}  ${run.createdAt.slice(0, 19).replace("T", " ")}  ${query}`,
  );
}

/** "N queued, M running" over the stored runs (each counted up to 1000), or "" when none is. */
async function pendingText(runs: Pick<RunsApi, "list">): Promise<string> {
  const [queued, running] = await Promise.all(
    (["queued", "running"] as const).map(async (status) => (await runs.list({ status, limit: 1000 })).length),
  );
  if (!queued && !running) return "";
  return `${queued} queued, ${running} running`;
}

/** Registers `dossier runs`. */
export function registerRunsCommand(program: Command, io: CliIo): void {
  const runs = program.command("runs").description(commandEntry("runs").description);

  runs
    .command("list")
    .description("list recent runs, newest first")
    .option("--limit <n>", "how many", "20")
    .option(
      "--status <status>",
      "only runs with this status (queued, running, completed, failed, cancelled, interrupted, awaiting-review)",
    )
    .option("--json", "print JSON")
    .action(async (opts: { limit: string; status?: string; json?: boolean }, cmd: Command) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new DossierError("INPUT_INVALID", `--limit must be a positive integer, got "${opts.limit}"`);
      const status = opts.status as RunRecord["status"] | undefined;
      if (status && !runStatusSchema.safeParse(status).success) {
        throw new DossierError(
          "INPUT_INVALID",
          `--status must be one of ${runStatusSchema.options.join(", ")}, got "${terminalLine(status)}"`,
        );
      }
      const services = openCliServices(io, cmd.optsWithGlobals<GlobalFlags>());
      try {
        // Through the runs API: runs whose process is gone are marked interrupted first.
        const list = await services.dossier.runs.list({ limit, ...(status ? { status } : {}) });
        if (opts.json) {
          io.out(`${terminalJson(list)}\n`);
          return;
        }
        if (list.length === 0) io.out("no runs yet\n");
        else io.out(`${list.map(formatRunLine).join("\n")}\n`);
        // What is waiting and under way, and with the run queue its depth and its workers.
        const pending = await pendingText(services.dossier.runs);
        if (pending) io.out(`${pending}\n`);
        const queueUrl = services.dossier.config.redisUrl;
        if (queueUrl) io.out(`${await readQueueStatus(queueUrl)}\n`);
      } finally {
        await services.close();
      }
    });

  runs
    .command("show <id>")
    .description("show one run (an id prefix is enough)")
    .option("--json", "print JSON")
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const services = openCliServices(io, cmd.optsWithGlobals<GlobalFlags>());
      try {
        const run = await services.dossier.runs.get(id);
        const events = await services.store.events.list(run.id, { types: ["report-ready", "report-diff"] });
        const lastSeq = await services.store.events.lastSeq(run.id);
        const report = events.filter((e) => e.type === "report-ready").at(-1);
        const diff = events.filter((e) => e.type === "report-diff").at(-1);
        const { followUpsOf, parentOf } = await import("../../runtime/ask-about-children.ts");
        const about = parentOf(run);
        const followUps = await followUpsOf(services.dossier.runs, run.id);
        const { versionsOf } = await import("../../runtime/refresh-versions.ts");
        const versions = await versionsOf(services.dossier.runs, run);
        const { deliveryLines, deliveryView } = await import("../../webhooks/delivery-view.ts");
        const webhooks = (await services.store.deliveries.list(run.id)).map(deliveryView);
        const review = await services.dossier.runs.plan(run.id);
        if (opts.json) {
          io.out(
            `${terminalJson({
              ...run,
              report: report?.type === "report-ready" ? { paths: report.paths, stats: report.stats } : null,
              ...(about ? { about } : {}),
              ...(followUps.length
                ? { followUps: followUps.map((f) => ({ id: f.id, query: f.query, status: f.status })) }
                : {}),
              ...(versions.length ? { versions } : {}),
              ...(webhooks.length ? { webhooks } : {}),
              ...(review
                ? { review: { stage: review.stage, deadline: review.deadline, plan: review.plan } }
                : {}),
              ...(diff?.type === "report-diff"
                ? { diff: { sectionsChanged: diff.sectionsChanged, paths: diff.paths } }
                : {}),
            })}\n`,
          );
          return;
        }
        const lines = [
          `run       ${run.id}`,
          `query     ${run.query}`,
          `strategy  ${run.strategy}`,
          `status    ${run.status}${run.stopReason ? ` (${run.stopReason})` : ""}`,
          `started   ${run.createdAt}`,
          `finished  ${run.finishedAt ?? "—"}`,
          `usage     ${usageLine(run)}`,
          `events    ${lastSeq}`,
        ];
        if (run.error) lines.push(`error     [${run.error.code}] ${run.error.message}`);
        if (review) {
          const until =
            review.stage === "pending" ? ` until ${review.deadline} (dossier runs review ${run.id})` : "";
          lines.push(
            `review    plan ${review.stage}: ${review.plan.items.length} ${review.plan.kind}${until}`,
          );
        }
        if (report?.type === "report-ready" && report.paths?.length)
          lines.push(`report    ${report.paths.join(", ")}`);
        if (diff?.type === "report-diff") {
          const changed = diff.sectionsChanged.length
            ? diff.sectionsChanged.join(", ")
            : "no section rewritten";
          lines.push(`diff      ${diff.paths.join(", ")} (${changed})`);
        }
        if (about) lines.push(`about     ${about} (a follow-up question)`);
        for (const f of followUps) lines.push(`follow-up ${f.id} ${f.status}: ${f.query}`);
        for (const v of versions) {
          const mark = v.runId === run.id ? " (this run)" : "";
          lines.push(`version ${String(v.version).padEnd(2)}${v.runId} ${v.status} ${v.createdAt}${mark}`);
        }
        lines.push(...deliveryLines(webhooks));
        io.out(`${lines.map(terminalLine).join("\n")}\n`);
      } finally {
        await services.close();
      }
    });

  runs
    .command("events <id>")
    .description("print a run's event log (an id prefix is enough)")
    .option("--type <types>", "only these event types (comma list)")
    .option("--after <seq>", "only events after this sequence number", "0")
    .option("--json", "print one JSON event per line")
    .action(async (id: string, opts: { type?: string; after: string; json?: boolean }, cmd: Command) => {
      const services = openCliServices(io, cmd.optsWithGlobals<GlobalFlags>());
      try {
        const runId = await services.dossier.runs.resolveId(id);
        const events = await services.store.events.list(runId, {
          afterSeq: Number(opts.after) || 0,
          ...(opts.type ? { types: opts.type.split(",").map((t) => t.trim()) } : {}),
        });
        io.out(
          events.map((e) => (opts.json ? terminalJson(e) : formatEvent(e))).join("\n") +
            (events.length ? "\n" : ""),
        );
      } finally {
        await services.close();
      }
    });

  runs
    .command("cancel <id>")
    .description(
      "cancel a run: a queued one at once (its job is removed from the queue), a running one at its process's next heartbeat",
    )
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const services = openCliServices(io, cmd.optsWithGlobals<GlobalFlags>());
      try {
        const runId = await services.dossier.runs.resolveId(id);
        const requested = await services.dossier.runs.requestCancel(
          runId,
          "cancelled with dossier runs cancel",
        );
        const record = await services.dossier.runs.get(runId);
        if (!requested) {
          throw new DossierError(
            "CONFLICT",
            `run ${runId} is not queued or running (it is ${record.status})`,
            {
              details: { runId, status: record.status },
            },
          );
        }
        const queueUrl = services.dossier.config.redisUrl;
        if (record.status === "cancelled" && queueUrl) {
          // Cancelled while queued: its job goes too (a worker that took it meanwhile skips it).
          const { openRunQueue } = await import("../../queue/run-queue.ts");
          const queue = openRunQueue({ url: queueUrl });
          try {
            await queue.ready();
            await queue.withdraw(runId);
          } finally {
            await queue.close();
          }
        }
        io.out(
          `${terminalLine(
            record.stopReason === "plan-rejected"
              ? `run ${runId}: cancelled while awaiting review (its plan rejected)`
              : record.status === "cancelled"
                ? `run ${runId}: cancelled before it started`
                : `run ${runId}: cancelling (its process stops it at its next heartbeat)`,
          )}\n`,
        );
      } finally {
        await services.close();
      }
    });

  runs
    .command("review <id>")
    .description(
      "show the plan a run awaits review of (--json: as JSON, to edit), or answer it: --approve, --plan <edited.json> or --reject; an approved run goes on here (with a run queue, on a worker)",
    )
    .option("--approve", "run the plan as shown")
    .option("--plan <file>", "run this edited plan (JSON: the plan as --json prints it, its items changed)")
    .option("--reject", "reject the plan: the run ends cancelled")
    .option("--reason <text>", "with --reject: why (recorded with the run)")
    .option("--json", "print JSON: the review, or one summary line once an approved run ends")
    .action(async (id: string, opts: ReviewFlags, cmd: Command) => {
      const { reviewRun } = await import("./runs-review.ts");
      const code = await reviewRun(io, id, { ...cmd.optsWithGlobals<GlobalFlags>(), ...opts });
      if (code !== 0) throw new CliExit(code);
    });

  runs
    .command("resume <id>")
    .description(
      "continue an interrupted, cancelled or failed run with the same id; completed model and tool calls are replayed from its journal",
    )
    .option("--json", "print one JSON summary line at the end")
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const { resumeRun } = await import("./runs-resume.ts");
      const code = await resumeRun(io, id, {
        ...cmd.optsWithGlobals<GlobalFlags>(),
        json: opts.json === true,
      });
      if (code !== 0) throw new CliExit(code);
    });
}
