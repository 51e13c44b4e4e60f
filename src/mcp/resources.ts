/**
 * Finished reports as MCP resources: `dossier://runs/<id>/report.md` (also `.html`, `.json`).
 */

import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { DossierError, toDossierError } from "../core/errors.ts";
import { REPORT_CONTENT_TYPES, readReport, reportFormats } from "../server/reports.ts";
import { reportFormatSchema } from "../server/schemas.ts";
import type { McpContext } from "./context.ts";

/** The URI of a run's report. */
export const reportUri = (runId: string, format = "md") => `dossier://runs/${runId}/report.${format}`;

/** Registers the report resources (the newest completed runs are listed). */
export function registerReportResources(server: McpServer, context: McpContext, listLimit = 50): void {
  const { dossier } = context;
  server.registerResource(
    "report",
    new ResourceTemplate("dossier://runs/{runId}/report.{format}", {
      list: async () => {
        const runs = await dossier.runs.list({ status: "completed", limit: listLimit });
        const withMarkdown = [];
        for (const run of runs)
          if ((await reportFormats(dossier.runs, run.id)).includes("md")) withMarkdown.push(run);
        return {
          resources: withMarkdown.map((run) => ({
            uri: reportUri(run.id),
            name: run.query.length > 80 ? `${run.query.slice(0, 79)}…` : run.query,
            mimeType: "text/markdown",
            description: `Report of run ${run.id} (${run.strategy}, ${run.finishedAt ?? run.createdAt})`,
          })),
        };
      },
    }),
    {
      title: "Research reports",
      description: "The cited report of a finished research run, as Markdown, HTML or a JSON bundle",
    },
    async (uri, variables) => {
      try {
        const format = reportFormatSchema.safeParse(String(variables.format));
        if (!format.success) {
          throw new DossierError(
            "INPUT_INVALID",
            `unknown report format "${variables.format}" (md, html or json)`,
          );
        }
        const runId = (await dossier.runs.get(String(variables.runId))).id;
        const text = await readReport(dossier.runs, runId, format.data);
        return {
          contents: [{ uri: uri.href, mimeType: REPORT_CONTENT_TYPES[format.data].split(";")[0]!, text }],
        };
      } catch (error) {
        throw resourceError(error);
      }
    },
  );
}

/** Codes of failures caused by the URI the client asked for (a bad format, an unknown or ambiguous run id, no report). */
const CALLER_CODES = new Set(["INPUT_INVALID", "NOT_FOUND"]);

/**
 * The JSON-RPC error of a failed read: a URI that names no report (bad format, unknown run, no
 * report yet) is the caller's invalid parameter (-32602, as the SDK answers a URI that matches
 * no resource); anything else stays an internal error. The Dossier code is kept in `data`.
 */
export function resourceError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  const e = toDossierError(error);
  const code = CALLER_CODES.has(e.code) ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, e.message, { code: e.code });
}
