/**
 * Living reports in the run view: a Refresh button under a finished report (a new version is
 * written as a child run, which the page then shows live), the versions of the report (the run
 * of version 1 and its refreshes), and for a refresh run the changes it made: sections
 * rewritten, claims added and removed, citations added and removed, pages that changed, and the
 * Markdown redline, all shown as text.
 */

import { useEffect, useState } from "preact/hooks";
import { api, apiText, type RunView } from "./api.ts";
import { markdownText } from "./claim-marks.ts";
import { httpUrl } from "./follow-up-logic.ts";
import { RedlineView } from "./redline-view.tsx";
import { Link, navigate } from "./router.tsx";
import { newerVersion, refreshOf, type VersionView, versionsOf } from "./versions.ts";
import "./refresh.css";

/** A citation in the diff. */
interface DiffCitation {
  number: number;
  title: string;
  locator: string;
}

/** The JSON diff of a refresh, as the UI reads it (claims and section titles are plain text). */
export interface ReportDiffView {
  version: number;
  refreshOf: string;
  sectionsChanged: string[];
  sections: { index: number; title: string; claimsAdded: string[]; claimsRemoved: string[] }[];
  citationsAdded: DiffCitation[];
  citationsRemoved: DiffCitation[];
  pages: { url: string; state: string }[];
}

/** Where a refresh run's diff is served: the JSON and the Markdown redline. */
export const diffPaths = (runId: string) => ({
  json: `/v1/runs/${encodeURIComponent(runId)}/diff/json`,
  md: `/v1/runs/${encodeURIComponent(runId)}/diff/md`,
});

/**
 * The versions of `run`'s report and, for a refresh run, its changes; with `refreshable` a Refresh
 * button too. Nothing is shown for a run never refreshed unless it is refreshable.
 */
export function RefreshPanel(props: { run: RunView; refreshable?: boolean }) {
  const { run } = props;
  const [versions, setVersions] = useState<VersionView[]>([]);
  const [diff, setDiff] = useState<{ json: ReportDiffView; md: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const parent = refreshOf(run);

  useEffect(() => {
    let live = true;
    api<{ runs: RunView[] }>("/v1/runs?limit=200").then(
      (r) =>
        live &&
        setVersions(versionsOf(r.runs.some((x) => x.id === run.id) ? r.runs : [...r.runs, run], run.id)),
      () => {},
    );
    if (parent && run.status === "completed") {
      const paths = diffPaths(run.id);
      Promise.all([api<ReportDiffView>(paths.json), apiText(paths.md)]).then(
        ([json, md]) => live && setDiff({ json, md }),
        (e) => live && setError(`The changes could not be read: ${(e as Error).message}`),
      );
    }
    return () => {
      live = false;
    };
  }, [run.id, run.status, parent]);

  const refresh = async () => {
    setBusy(true);
    setError("");
    try {
      const started = await api<{ runId?: string; run?: { id: string } }>(
        `/v1/runs/${encodeURIComponent(run.id)}/refresh`,
        { method: "POST", body: {} },
      );
      const id = started.runId ?? started.run?.id;
      if (id) navigate(`/runs/${encodeURIComponent(id)}`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (!props.refreshable && versions.length === 0) return null;
  // Only the latest completed version is refreshed (the server refuses an older one).
  const newer = newerVersion(versions, run.id);
  return (
    <section aria-labelledby="versions-h" class="versions" data-testid="versions">
      <h2 id="versions-h">Versions</h2>
      {props.refreshable && newer && (
        <p class="hint" data-testid="newer-version">
          Version {newer.version} is the latest:{" "}
          <Link href={`/runs/${encodeURIComponent(newer.runId)}`}>refresh that one</Link>.
        </p>
      )}
      {props.refreshable && !newer && (
        <div class="row">
          <button type="button" onClick={refresh} disabled={busy || run.status !== "completed"}>
            Refresh
          </button>
          <span class="hint">
            Fetches the cited pages and runs the searches again; only sections whose evidence changed are
            rewritten, as a new version.
          </span>
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {versions.length > 0 && (
        <ol class="version-list" data-testid="version-list">
          {versions.map((v) => (
            <li key={v.runId} data-run={v.runId} aria-current={v.runId === run.id ? "page" : undefined}>
              <Link href={`/runs/${encodeURIComponent(v.runId)}`}>Version {v.version}</Link>{" "}
              <span class={`badge ${v.status}`}>{v.status}</span>{" "}
              <time dateTime={v.createdAt}>{new Date(v.createdAt).toLocaleString()}</time>
              {v.runId === run.id && <span class="hint"> (this run)</span>}
            </li>
          ))}
        </ol>
      )}
      {parent && diff && <DiffView diff={diff.json} redline={diff.md} parent={parent} />}
    </section>
  );
}

function Claims(props: { label: string; claims: string[]; removed?: boolean }) {
  if (props.claims.length === 0) return null;
  return (
    <>
      <p>{props.label}</p>
      <ul>
        {props.claims.map((c) => (
          <li key={c}>{props.removed ? <del>{c}</del> : <ins>{c}</ins>}</li>
        ))}
      </ul>
    </>
  );
}

function Citations(props: { label: string; list: DiffCitation[] }) {
  if (props.list.length === 0) return null;
  return (
    <>
      <h4>{props.label}</h4>
      <ul>
        {props.list.map((c) => {
          const url = httpUrl(c.locator);
          return (
            <li key={`${c.number}-${c.locator}`}>
              [{c.number}] {markdownText(c.title)}{" "}
              {url ? (
                <a href={url} rel="noopener noreferrer" target="_blank">
                  {url}
                </a>
              ) : (
                <code>{c.locator}</code>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

function DiffView(props: { diff: ReportDiffView; redline: string; parent: string }) {
  const { diff } = props;
  const moved = diff.pages.filter((p) => p.state !== "unchanged");
  return (
    <div class="diff" data-testid="diff">
      <h3>Changes in version {diff.version}</h3>
      <p>
        Refresh of <Link href={`/runs/${encodeURIComponent(props.parent)}`}>{props.parent}</Link>:{" "}
        <span data-testid="sections-changed">
          {diff.sectionsChanged.length === 0
            ? "no cited evidence changed, nothing was rewritten."
            : `${diff.sectionsChanged.length} section(s) rewritten: ${diff.sectionsChanged.join(", ")}.`}
        </span>
      </p>
      {diff.sections.map((s) => (
        <div key={s.index} class="diff-section" data-section={s.index}>
          <h4>{s.title}</h4>
          <Claims label="Claims removed:" claims={s.claimsRemoved} removed />
          <Claims label="Claims added:" claims={s.claimsAdded} />
          {s.claimsAdded.length === 0 && s.claimsRemoved.length === 0 && (
            <p class="hint">Wording only; no claim changed.</p>
          )}
        </div>
      ))}
      <Citations label="Citations added" list={diff.citationsAdded} />
      <Citations label="Citations removed" list={diff.citationsRemoved} />
      {moved.length > 0 && (
        <>
          <h4>Pages</h4>
          <ul data-testid="diff-pages">
            {moved.map((p) => (
              <li key={p.url}>
                {p.state}: <code>{p.url}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      <details>
        <summary>Redline</summary>
        <RedlineView markdown={props.redline} />
      </details>
    </div>
  );
}
