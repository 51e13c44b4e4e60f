/**
 * The public HTTP API, as the UI calls it: same-origin requests that carry the session cookie
 * and the `X-Dossier-Client` header the server asks of cookie-signed state changes.
 */

/** An API error with the server's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the API; JSON in and out. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? "GET",
    credentials: "same-origin",
    headers: {
      accept: "application/json",
      "x-dossier-client": "web",
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = (json as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? "HTTP_ERROR",
      error?.message ?? `HTTP ${response.status}`,
    );
  }
  return json as T;
}

/** Fetches a text resource of the API (a report). */
export async function apiText(path: string): Promise<string> {
  const response = await fetch(path, { credentials: "same-origin", headers: { "x-dossier-client": "web" } });
  if (!response.ok) throw new ApiError(response.status, "HTTP_ERROR", `HTTP ${response.status}`);
  return response.text();
}

/** A run as the API shows it. */
export interface RunView {
  id: string;
  query: string;
  strategy: string;
  status: "queued" | "running" | "completed" | "failed" | "cancelled" | "interrupted" | "awaiting-review";
  createdAt: string;
  updatedAt?: string;
  finishedAt?: string | null;
  stopReason?: string | null;
  usage?: { costUsd?: number | null } | null;
  error?: { code: string; message: string } | null;
  active: boolean;
  reports: Record<string, string>;
  [field: string]: unknown;
}

/** One of a strategy's own options, as `/v1/strategies` describes it. */
export interface StrategyOption {
  name: string;
  /** json: an object, array or union, written as JSON text. */
  type: "integer" | "number" | "string" | "boolean" | "json";
  default?: number | string | boolean | undefined;
  description?: string | undefined;
  minimum?: number | undefined;
  maximum?: number | undefined;
  enum?: string[] | undefined;
  /** A json option: what it allows, in words. */
  allowed?: string | undefined;
}

/** A strategy of the registry. */
export interface StrategyInfo {
  name: string;
  description: string;
  capabilities: { needsModel: boolean; web: boolean; local: boolean };
  /** Its own options (absent from an older server). */
  options?: StrategyOption[];
}

/** The dry estimate. */
export interface Estimate {
  strategy: string;
  llmCalls: [number, number];
  toolCalls: [number, number];
  tokens: [number, number];
  costUsd: [number, number] | null;
  unpriced: string[];
  cappedBy: string[];
}

/** A sub-item of a plan under review (graph: a subtask serving a section; mams: a sub-step). */
export interface PlanSubItem {
  id: string;
  title: string;
  description?: string;
  /** The strategy's own data of the item (seed queries, a node's type): shown, not edited. */
  extras?: Record<string, unknown>;
}

/** An item of a plan under review, with its sub-items. */
export interface PlanItem extends PlanSubItem {
  children?: PlanSubItem[];
}

/** What an edit of a plan may do. */
export interface PlanLimits {
  minItems: number;
  maxItems: number;
  /** Sub-items of one item at most (0: the items have none). */
  maxChildren: number;
  /** What a sub-item is (`subtask`, `step`). */
  childKind?: string;
}

/** A strategy's plan as it is reviewed (`GET /v1/runs/{id}/plan`). */
export interface ReviewPlan {
  strategy: string;
  /** What the items are: subtasks, sections, steps, facets. */
  kind: string;
  title?: string;
  items: PlanItem[];
  limits: PlanLimits;
}

/** A run's plan review. */
export interface PlanReview {
  runId: string;
  status: RunView["status"];
  stage: "pending" | "approved" | "edited" | "rejected" | "timed-out";
  plan: ReviewPlan;
  proposed: ReviewPlan;
  changes: {
    added: string[];
    removed: string[];
    reworded: string[];
    reordered: boolean;
    retitled: boolean;
  } | null;
  requestedAt: string;
  deadline: string;
  answeredAt: string | null;
  reason: string | null;
}
