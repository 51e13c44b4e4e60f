/**
 * `dossier strategies`: the research strategies this Dossier can run — name, description, the
 * model roles each calls and its own options — read from the strategy registry.
 */

import type { Command } from "commander";
import { z } from "zod";
import { createStrategyRegistry } from "../../strategies/registry.ts";
import { type ProtocolSampling, samplingTable } from "../../strategies/sampling-table.ts";
import type { StrategyDefinition } from "../../strategies/types.ts";
import type { CliIo } from "../io.ts";
import { commandEntry } from "./catalog.ts";

/** A strategy as listed. */
export interface StrategyListing {
  name: string;
  description: string;
  roles: string[];
  needsModel: boolean;
  web: boolean;
  local: boolean;
  /** The options' JSON schema. */
  options: unknown;
  /** The sampling it states per protocol and role (its paper's or released code's). */
  sampling: ProtocolSampling[];
}

/** The listing of one definition. */
export function listStrategy(definition: StrategyDefinition<unknown>): StrategyListing {
  return {
    name: definition.name,
    description: definition.description,
    roles: [...definition.roles],
    ...definition.capabilities,
    options: z.toJSONSchema(definition.optionsSchema, { io: "input", unrepresentable: "any" }),
    sampling: samplingTable(definition),
  };
}

/** One line per protocol: each role's stated temperature, top-p and output cap. */
function samplingLines(listing: StrategyListing): string[] {
  if (!listing.roles.length) return [];
  const stated = listing.sampling.filter((p) => Object.keys(p.roles).length);
  if (!stated.length) return ["  sampling: the provider's defaults (none stated)"];
  return listing.sampling.map((p) => {
    const roles = Object.entries(p.roles).map(([role, s]) => {
      const parts = [
        s.temperature === undefined ? null : `temperature ${s.temperature}`,
        s.topP === undefined ? null : `top-p ${s.topP}`,
        s.maxOutputTokens === undefined ? null : `${s.maxOutputTokens} output tokens`,
      ].filter(Boolean);
      return `${role} ${parts.join(", ")}`;
    });
    const where = p.protocol === null ? "" : ` (protocol ${p.protocol})`;
    return `  sampling${where}: ${roles.length ? roles.join("; ") : "the provider's defaults"}`;
  });
}

function optionNames(listing: StrategyListing): string {
  const properties = (listing.options as { properties?: Record<string, unknown> }).properties ?? {};
  const names = Object.keys(properties);
  return names.length ? names.join(", ") : "none";
}

/** Registers `dossier strategies`. */
export function registerStrategiesCommand(program: Command, io: CliIo): void {
  program
    .command("strategies")
    .description(commandEntry("strategies").description)
    .option("--json", "print JSON")
    .action((opts: { json?: boolean }) => {
      const listings = createStrategyRegistry().list().map(listStrategy);
      if (opts.json) {
        io.out(`${JSON.stringify(listings, null, 2)}\n`);
        return;
      }
      const lines: string[] = [];
      for (const s of listings) {
        lines.push(`${s.name}${s.name === "graph" ? " (default)" : ""}`);
        lines.push(`  ${s.description}`);
        lines.push(`  model roles: ${s.roles.length ? s.roles.join(", ") : "none (no model needed)"}`);
        lines.push(
          `  sources: ${[s.web ? "web" : null, s.local ? "local" : null].filter(Boolean).join(", ")}`,
        );
        lines.push(`  options: ${optionNames(s)}`);
        lines.push(...samplingLines(s));
        lines.push("");
      }
      io.out(lines.join("\n"));
    });
}
