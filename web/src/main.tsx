/**
 * The Dossier web UI: sign-in, new research, the live run view with its report, and the runs
 * list. A tiny history router; all data comes from the public HTTP/SSE API.
 */

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import { NewResearch } from "./new-research.tsx";
import { Link, navigate, usePath } from "./router.tsx";
import { RunPage } from "./run-page.tsx";
import { RunsList } from "./runs-list.tsx";
import { SignIn } from "./sign-in.tsx";
import "./styles.css";

type Auth =
  | { state: "loading" }
  | { state: "out"; expired: boolean }
  | { state: "in"; authRequired: boolean };

function App() {
  const path = usePath();
  const [auth, setAuth] = useState<Auth>({ state: "loading" });
  const check = async () => {
    const status = await api<{ authRequired: boolean; signedIn: boolean }>("/auth/status");
    setAuth(
      status.signedIn
        ? { state: "in", authRequired: status.authRequired }
        : { state: "out", expired: new URLSearchParams(location.search).has("signin") },
    );
  };
  useEffect(() => {
    void check();
  }, []);
  useEffect(() => {
    const title = path.startsWith("/runs/") ? "Run" : path === "/runs" ? "Runs" : "New research";
    document.title = `${title} · Dossier`;
  }, [path]);

  if (auth.state === "loading") return <main id="main" aria-busy="true" />;
  if (auth.state === "out") {
    return <SignIn expired={auth.expired} onSignedIn={() => void check().then(() => navigate("/"))} />;
  }
  const runId = /^\/runs\/([^/]+)/.exec(path)?.[1];
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/" class="brand">
          Dossier
        </Link>
        <nav aria-label="Main">
          <Link href="/">New research</Link>
          <Link href="/runs">Runs</Link>
        </nav>
        {auth.authRequired && (
          <button
            type="button"
            class="quiet"
            onClick={async () => {
              await api("/auth/signout", { method: "POST" });
              setAuth({ state: "out", expired: false });
            }}
          >
            Sign out
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {runId ? (
          <RunPage key={runId} runId={decodeURIComponent(runId)} />
        ) : path === "/runs" ? (
          <RunsList />
        ) : (
          <NewResearch />
        )}
      </main>
    </>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
