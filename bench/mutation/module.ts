/**
 * One module of `npm run bench:mutation`: the file StrykerJS mutates and the test files that may
 * kill its mutants. The modules are listed by group, one file per group beside this one, each
 * with its own list of survivors judged equivalent (`<group>-equivalent.json`).
 */

/** One module to mutate and the test files that may kill its mutants. */
export interface MutationModule {
  /**
   * The file to mutate, optionally with a line range (`src/a.ts:10-80`: only the codec of a
   * larger file). The range is Stryker's `mutate` syntax.
   */
  file: string;
  /**
   * The module's own unit tests (fast, beside it): every mutant is run against the tests among
   * these that cover it. End-to-end files are left out where focused tests pin the same rules,
   * so that the whole benchmark stays within minutes.
   */
  tests: readonly string[];
  /**
   * Extra time a mutant's test run may take before it counts as a timeout (Stryker's
   * `timeoutMS`, added to 1.5 × the run's normal time). Pure modules need little; a hung
   * mutant then costs seconds, not the default 20.
   */
  timeoutMs?: number;
}

/** A group of modules, printed under its name. */
export interface MutationGroup {
  /** The group's name: `--group <name>` runs it alone; its equivalents are in `<name>-equivalent.json`. */
  name: string;
  modules: readonly MutationModule[];
}
