import { useCallback, useEffect, useRef, useState } from "react";
import type { ErrorBody } from "../bindings/ErrorBody";
import type { NavTarget } from "../bindings/NavTarget";
import { errorBodyOf } from "../api/errors";
import { opensOnGuide } from "../components/guide/firstRun";
import { notifyPending } from "../api/browserNotifications";
import { onNavigate, onTeamInboxes, subscribe } from "../api/events";
import { useBackendHandles } from "../state/store";
import { SNAPSHOT_MARK, markOnce } from "./useReadyMark";

export type Connection = { phase: "loading" } | { phase: "ready" } | { phase: "failed"; error: ErrorBody };

/**
 * Connects the window: loads the snapshot, then follows events after its seq, and passes
 * `navigate` requests on. Re-running (`retry`) loads a fresh snapshot; the reducer ignores
 * whatever it had already seen.
 */
export function useBackend(onNavigateTo: (target: NavTarget) => void, onFirstRun: () => void = () => undefined): { connection: Connection; retry: () => void } {
  const { dispatch, api } = useBackendHandles();
  const [connection, setConnection] = useState<Connection>({ phase: "loading" });
  const [attempt, setAttempt] = useState(0);
  // The latest handler, so a new one does not reconnect the window.
  const navigateTo = useRef(onNavigateTo);
  const firstRun = useRef(onFirstRun);
  useEffect(() => {
    navigateTo.current = onNavigateTo;
    firstRun.current = onFirstRun;
  }, [onNavigateTo, onFirstRun]);

  useEffect(() => {
    let live = true;
    let stop: (() => void) | null = null;
    void (async () => {
      try {
        const start = await api.bootstrap();
        markOnce(SNAPSHOT_MARK);
        if (!live) return;
        if (start.surface === "desktop") dispatch({ type: "bootstrap", data: start.bootstrap });
        else dispatch({ type: "team_bootstrap", data: start.snapshot, person: start.person });
        // The window is drawn from the snapshot at once; the live stream replays every event after
        // the snapshot's, so nothing that happens before it is listening is missed.
        setConnection({ phase: "ready" });
        // A link that launched the app is where the window opens; a new Beckon opens on its guide.
        if (start.surface === "desktop") {
          if (start.bootstrap.navigate) navigateTo.current(start.bootstrap.navigate);
          else if (opensOnGuide(start.bootstrap, window.location.hash)) firstRun.current();
        }
        const lastSeq = start.surface === "desktop" ? start.bootstrap.last_seq : start.snapshot.last_seq;
        // The team inboxes: listening first, then what they hold now (applying both is harmless).
        // Without the event bridge the window still works, without team inboxes.
        const [unsubscribe, unlistenTeams] = await Promise.all([
          subscribe(lastSeq, (event) => {
            if (event.type === "live" && start.surface === "team" && event.event.kind === "question_pending") {
              notifyPending(event.event.question, (id) => navigateTo.current({ to: "question", id }));
            }
            if (event.type === "live") dispatch({ type: "live", event: event.event });
            else dispatch({ type: "text_delta", sessionId: event.session_id, text: event.text });
          }),
          start.surface === "desktop" ? onTeamInboxes((state) => dispatch({ type: "team_inboxes", state })).catch(() => null) : null,
        ]);
        if (!live) {
          unsubscribe();
          unlistenTeams?.();
          return;
        }
        stop = () => {
          unsubscribe();
          unlistenTeams?.();
        };
        if (unlistenTeams) {
          const teams = await api.teamInboxes().catch(() => null);
          if (teams && live) dispatch({ type: "team_inboxes", state: teams });
        }
      } catch (error) {
        if (live) setConnection({ phase: "failed", error: errorBodyOf(error) });
      }
    })();
    return () => {
      live = false;
      stop?.();
    };
  }, [api, dispatch, attempt]);

  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let live = true;
    onNavigate(onNavigateTo)
      .then((stop) => {
        if (live) unlisten = stop;
        else stop();
      })
      .catch(() => {
        // Without the event bridge the window still works; it just cannot be steered from outside.
      });
    return () => {
      live = false;
      unlisten?.();
    };
  }, [onNavigateTo]);

  const retry = useCallback(() => {
    setConnection({ phase: "loading" });
    setAttempt((count) => count + 1);
  }, []);
  return { connection, retry };
}
