/**
 * The named schemas of the OpenAPI document (`#/components/schemas/<Name>`): the request and
 * response schemas of `schemas.ts`, each given the name the document refers to it by. They
 * validate exactly as the schemas they are made from.
 */

import { z } from "@hono/zod-openapi";
import {
  askBodySchema,
  askResponseSchema,
  corpusListResponseSchema,
  createRunBodySchema,
  errorResponseSchema,
  estimateResponseSchema,
  eventSchema,
  fetchBodySchema,
  fetchResponseSchema,
  runActionResponseSchema,
  runViewSchema,
  searchBodySchema,
  searchResponseSchema,
  strategyListResponseSchema,
} from "./schemas.ts";

/** POST /v1/runs and POST /v1/estimate. */
export const CreateRunBody = createRunBodySchema.openapi("CreateRunBody");
/** POST /v1/ask. */
export const AskBody = askBodySchema.openapi("AskBody");
/** POST /v1/search. */
export const SearchBody = searchBodySchema.openapi("SearchBody");
/** POST /v1/fetch. */
export const FetchBody = fetchBodySchema.openapi("FetchBody");

/** Every error answer of the API. */
export const ErrorBody = errorResponseSchema.openapi("Error");
/** A run as the API shows it. */
export const Run = runViewSchema.openapi("Run");
/** One run. */
export const RunResponse = z.object({ run: Run }).openapi("RunResponse");
/** Stored runs, newest first. */
export const RunList = z.object({ runs: z.array(Run) }).openapi("RunList");
/** One stored event of a run's audit trail. */
export const Event = eventSchema.openapi("Event");
/** The answer of a cancel request. */
export const RunAction = runActionResponseSchema.openapi("RunAction");
/** POST /v1/search. */
export const SearchResponse = searchResponseSchema.openapi("SearchResponse");
/** POST /v1/fetch. */
export const FetchResponse = fetchResponseSchema.openapi("FetchResponse");
/** POST /v1/ask. */
export const AskResponse = askResponseSchema.openapi("AskResponse");
/** GET /v1/strategies. */
export const StrategyList = strategyListResponseSchema.openapi("StrategyList");
/** GET /v1/corpora. */
export const CorpusList = corpusListResponseSchema.openapi("CorpusList");
/** POST /v1/estimate. */
export const EstimateResponse = estimateResponseSchema.openapi("EstimateResponse");

/** The `{id}` path parameter of a run's routes. */
export const runIdParam = z.string().min(1).openapi({ description: "run id or a unique prefix of it" });
