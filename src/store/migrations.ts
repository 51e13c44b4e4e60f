/**
 * Schema migrations of the embedded store. The schema version is SQLite's `user_version`;
 * migration N brings the schema from version N-1 to N. Never edit a released migration:
 * append a new one.
 */

/** Migrations in order; index 0 is version 1. */
export const MIGRATIONS: readonly string[] = [
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
    error_json TEXT
  );
  CREATE INDEX runs_by_created ON runs (created_at);

  CREATE TABLE events (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    ts TEXT NOT NULL,
    type TEXT NOT NULL,
    data_json TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  ) WITHOUT ROWID;

  CREATE TABLE steps (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    kind TEXT NOT NULL,
    value_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
  ) WITHOUT ROWID;

  CREATE TABLE cache (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value_json TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    PRIMARY KEY (namespace, key)
  ) WITHOUT ROWID;
  CREATE INDEX cache_by_expiry ON cache (expires_at);
  `,
  `
  ALTER TABLE runs ADD COLUMN owner_json TEXT;
  ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
  CREATE INDEX runs_by_status ON runs (status);
  `,
  `
  ALTER TABLE runs ADD COLUMN cancel_reason TEXT;
  ALTER TABLE runs ADD COLUMN cancel_requested_at TEXT;
  `,
  // One run per version of a report (see RunStore.create): two refreshes cannot both write it.
  `
  CREATE UNIQUE INDEX runs_by_report_version ON runs (
    json_extract(options_json, '$.strategyOptions.reportRoot'),
    json_extract(options_json, '$.strategyOptions.version')
  ) WHERE json_extract(options_json, '$.strategyOptions.reportRoot') IS NOT NULL;
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

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
