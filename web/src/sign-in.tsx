/** The sign-in page: the token `dossier serve` printed, exchanged for an HttpOnly session cookie. */

import { useState } from "preact/hooks";
import { api } from "./api.ts";

export function SignIn(props: { expired: boolean; onSignedIn: () => void }) {
  const [error, setError] = useState(
    props.expired ? "That sign-in link was already used or has expired; enter the token instead." : "",
  );
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="signin">
      <h1>Sign in to Dossier</h1>
      <p>
        Enter the token <code>dossier serve</code> printed on its first start (it is kept in the{" "}
        <code>server-token</code> file of the data directory), or open the one-time sign-in link it prints.
      </p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const form = e.currentTarget as HTMLFormElement;
          const input = form.elements.namedItem("token") as HTMLInputElement;
          setBusy(true);
          setError("");
          try {
            const r = await api<{ signedIn: boolean }>("/auth/session", {
              method: "POST",
              body: { token: input.value },
            });
            input.value = "";
            if (r.signedIn) props.onSignedIn();
            else setError("That token is not valid.");
          } catch (err) {
            setError((err as Error).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autoComplete="off" required spellcheck={false} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
