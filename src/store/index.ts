/** The store layer: runs, events, journal and cache on embedded SQLite. */

export * from "./database.ts";
export * from "./migrations.ts";
export * from "./sqlite-store.ts";
export type * from "./types.ts";
