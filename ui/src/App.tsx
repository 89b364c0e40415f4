import { Suspense, useCallback, useEffect, useRef, useState } from "react";
import type { NavTarget } from "./bindings/NavTarget";
import { Announcer } from "./components/common/Announcer";
import { FatalScreen } from "./components/common/FatalScreen";
import { ProblemBanner } from "./components/common/ProblemBanner";
import { Spinner } from "./components/common/Spinner";
import { Toasts } from "./components/common/Toasts";
import { InboxView } from "./components/inbox/InboxView";
import { NewChatView } from "./components/newchat/NewChatView";
import { onDemand } from "./components/common/onDemand";
import { Sidebar } from "./components/sidebar/Sidebar";
import { TopBar } from "./components/sidebar/TopBar";
import { usePhoneLayout } from "./components/common/usePhoneLayout";
import { afterNextPaint } from "./hooks/useAfterFirstFrame";
import { useBackend } from "./hooks/useBackend";
import { useMetricsRefresh } from "./hooks/useMetricsRefresh";
import { useQuestionShownMark, type QuestionSentTo } from "./hooks/useQuestionShownMark";
import { useReadyMark } from "./hooks/useReadyMark";
import { parseHash, routeToHash, type Route } from "./state/route";
import { useAppSelector } from "./state/store";

// The views not on the inbox's first screen: their code loads when first shown, or once the
// first frame is on screen, so the first frame does not wait for it.
const Settings = onDemand(() => import("./components/settings/SettingsView").then((module) => module.SettingsView));
const Guide = onDemand(() => import("./components/guide/GuideView").then((module) => module.GuideView));
const Session = onDemand(() => import("./components/session/SessionView").then((module) => module.SessionView));

/** Loads the views kept out of the first bundle, a frame after the window is ready. */
function usePreloadViews(ready: boolean): void {
  useEffect(() => {
    if (!ready) return;
    return afterNextPaint(() => {
      for (const view of [Session, Settings, Guide]) void view.preload().catch(() => undefined);
    });
  }, [ready]);
}

function useRoute(): [Route, (route: Route) => void] {
  const [route, setRoute] = useState<Route>(() => parseHash(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseHash(window.location.hash));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  const go = useCallback((next: Route) => {
    // The hash keeps the place across a reload; replaceState avoids a history entry per click.
    window.history.replaceState(null, "", routeToHash(next));
    setRoute(next);
  }, []);
  return [route, go];
}

/**
 * In the phone layout the sidebar is a panel over the view, opened by the top bar's menu button:
 * whether it is open, and the button to give focus back to when Escape closes it.
 */
function useSidebarPanel(phone: boolean) {
  const [open, setOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement | null>(null);
  // A window widened past the phone layout has the sidebar in its column again.
  if (open && !phone) setOpen(false);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      menuButton.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);
  return { open, setOpen, menuButton };
}

/** The window: sidebar (or, in the phone layout, a top bar and the sidebar as a panel), the current view, and the banners over it. */
export function App() {
  const [route, go] = useRoute();
  const phone = usePhoneLayout();
  const panel = useSidebarPanel(phone);
  const [problem, setProblem] = useState<string | null>(null);
  // The question a notification, the tray or a link last sent the window to, until its card is
  // shown or the person goes elsewhere.
  const [sentTo, setSentTo] = useState<QuestionSentTo | null>(null);
  const navigate = useCallback(
    (next: Route) => {
      setSentTo(null);
      go(next);
    },
    [go],
  );
  const onNavigateTo = useCallback(
    (target: NavTarget) => {
      if (target.to === "problem") setProblem(target.message);
      else if (target.to === "inbox") navigate({ view: "inbox" });
      else {
        navigate({ view: target.to, id: target.id });
        if (target.to === "question") setSentTo({ id: target.id });
      }
    },
    [navigate],
  );
  useQuestionShownMark(sentTo);
  const onFirstRun = useCallback(() => navigate({ view: "guide" }), [navigate]);
  const { connection, retry } = useBackend(onNavigateTo, onFirstRun);
  useMetricsRefresh(connection.phase === "ready");
  useReadyMark(connection.phase === "ready");
  usePreloadViews(connection.phase === "ready");
  const questions = useAppSelector((state) => state.questions);
  // The skip link asks the inbox to put focus on its list, once.
  const [skipping, setSkipping] = useState(false);
  const inBrowser = useAppSelector((state) => state.person !== null);

  if (connection.phase === "failed") return <FatalScreen error={connection.error} onRetry={retry} />;
  if (connection.phase === "loading") {
    return (
      <main className="splash">
        <Spinner label="Loading Beckon" />
      </main>
    );
  }

  const openSession = (id: string) => navigate({ view: "session", id });
  const openQuestion = (id: string) => navigate({ view: "question", id });
  // Going anywhere from the sidebar (or the top bar) closes the panel over the view.
  const navigateFromMenu = (next: Route) => {
    panel.setOpen(false);
    navigate(next);
  };
  const closePanel = () => {
    panel.setOpen(false);
    panel.menuButton.current?.focus();
  };
  const sidebarRoute: Route = route.view === "question" && questions[route.id] ? { view: "session", id: questions[route.id]?.session_id ?? "" } : route;
  let view;
  // Chats, settings and the guide are the desktop app's; a browser shows the inbox instead.
  const shown: Route = inBrowser && (route.view === "new" || route.view === "settings" || route.view === "guide") ? { view: "inbox" } : route;
  switch (shown.view) {
    case "inbox":
      view = <InboxView onOpenSession={openSession} focusList={skipping} onListFocused={() => setSkipping(false)} />;
      break;
    case "new":
      view = <NewChatView onStarted={openSession} />;
      break;
    case "settings":
      view = <Settings.View onShowGuide={() => navigate({ view: "guide" })} />;
      break;
    case "guide":
      view = <Guide.View onDone={() => navigate({ view: "inbox" })} onStarted={openSession} />;
      break;
    case "session":
      view = <Session.View key={shown.id} sessionId={shown.id} onOpenSession={openSession} onOpenQuestion={openQuestion} />;
      break;
    case "question": {
      // In its session, scrolled to its card, when the window knows where it was asked.
      const question = questions[shown.id];
      view = question ? (
        <Session.View key={question.session_id} sessionId={question.session_id} focusQuestionId={shown.id} onOpenSession={openSession} onOpenQuestion={openQuestion} />
      ) : (
        <InboxView onOpenSession={openSession} highlightId={shown.id} />
      );
      break;
    }
  }

  return (
    <div className="app">
      <a
        className="skip-link"
        href={routeToHash({ view: "inbox" })}
        onClick={(event) => {
          event.preventDefault();
          if (shown.view !== "inbox") navigate({ view: "inbox" });
          setSkipping(true);
        }}
      >
        Skip to the inbox
      </a>
      {phone ? (
        <TopBar route={sidebarRoute} menuOpen={panel.open} onToggleMenu={() => panel.setOpen(!panel.open)} onNavigate={navigateFromMenu} menuButtonRef={panel.menuButton} />
      ) : null}
      <Sidebar route={sidebarRoute} onNavigate={navigateFromMenu} open={panel.open} />
      {/* Tapping beside the panel closes it, as on any phone; Escape does the same from the keyboard. */}
      {panel.open ? <div className="sidebar-backdrop" aria-hidden="true" onClick={closePanel} /> : null}
      <main className="main" inert={panel.open}>
        {problem ? <ProblemBanner message={problem} onDismiss={() => setProblem(null)} /> : null}
        <Suspense
          fallback={
            <div className="view">
              <Spinner label="Loading" />
            </div>
          }
        >
          {view}
        </Suspense>
      </main>
      <Toasts />
      <Announcer />
    </div>
  );
}
