/**
 * Schema migrations of the PostgreSQL store. The version is the row count of
 * `dossier_migrations`; migration N brings the schema from version N-1 to N. Never edit a
 * released migration: append a new one. Times are ISO text and JSON is stored as text, as in
 * the SQLite store, so both backends read back exactly what was written.
 */

/** Migrations in order; index 0 is version 1. */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    query TEXT NOT NULL,
    strategy TEXT NOT NULL,
    options_json TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    finished_at TEXT,
    stop_reason TEXT,
    usage_json TEXT,
    error_json TEXT,
    owner_json TEXT,
    heartbeat_at TEXT,
    cancel_reason TEXT,
    cancel_requested_at TEXT,
    last_seq INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX runs_by_created ON runs (created_at);
  CREATE INDEX runs_by_status ON runs (status);

  CREATE TABLE events (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    ts TEXT NOT NULL,
    type TEXT NOT NULL,
    data_json TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  );

  CREATE TABLE steps (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    kind TEXT NOT NULL,
    value_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
  );

  CREATE TABLE cache (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value_json TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    PRIMARY KEY (namespace, key)
  );
  CREATE INDEX cache_by_expiry ON cache (expires_at);
  `,
  // One run per version of a report (see RunStore.create): two refreshes cannot both write it.
  `
  CREATE UNIQUE INDEX runs_by_report_version ON runs (
    (options_json::jsonb #>> '{strategyOptions,reportRoot}'),
    (options_json::jsonb #>> '{strategyOptions,version}')
  ) WHERE (options_json::jsonb #>> '{strategyOptions,reportRoot}') IS NOT NULL;
  `,
  // The webhook outbox: one row per event and URL, its attempts as a JSON array.
  `
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    event_type TEXT NOT NULL,
    event_key TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts_json TEXT NOT NULL,
    max_attempts INTEGER NOT NULL,
    next_attempt_at TEXT,
    lease_token TEXT,
    lease_until TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    delivered_at TEXT
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
  CREATE INDEX webhook_deliveries_by_run ON webhook_deliveries (run_id, created_at);
  `,
];
